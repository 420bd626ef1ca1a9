import type { Clock } from '../safety/clock.js';
import type { LoopEvent, WaitReason } from './events.js';

/** How often a wait reports the time left (status.json's countdown). */
export const WAIT_TICK_MS = 60_000;

export interface WaitDeps {
  clock: Clock;
  signal: AbortSignal;
  emit: (event: LoopEvent) => Promise<void>;
}

/**
 * Waits until `until` on the injected clock, in ticks that report the time left, and returns
 * early (false) when the signal aborts — Ctrl+C during a wait pauses the run like Ctrl+C during
 * an iteration. Time left is recomputed from the clock each tick, so a machine that slept
 * through part of the wait does not wait it again; it also shrinks by at least each tick, so a
 * clock that stands still cannot make it wait forever.
 */
export async function waitUntil(
  deps: WaitDeps,
  wait: {
    reason: WaitReason;
    until: Date;
    detail: string;
    iteration?: number | undefined;
    attempt?: number | undefined;
  },
): Promise<boolean> {
  const at = (): string => deps.clock.now().toISOString();
  const until = wait.until.toISOString();
  let left = wait.until.getTime() - deps.clock.now().getTime();
  if (left <= 0) return !deps.signal.aborted;
  await deps.emit({
    type: 'wait_started',
    at: at(),
    reason: wait.reason,
    until,
    durationMs: left,
    detail: wait.detail,
    ...(wait.iteration === undefined ? {} : { iteration: wait.iteration }),
    ...(wait.attempt === undefined ? {} : { attempt: wait.attempt }),
  });
  const aborted = (): boolean => deps.signal.aborted;
  while (left > 0 && !aborted()) {
    const tick = Math.min(left, WAIT_TICK_MS);
    await deps.clock.sleep(tick, deps.signal);
    if (aborted()) break;
    left = Math.min(left - tick, wait.until.getTime() - deps.clock.now().getTime());
    if (left > 0) {
      await deps.emit({
        type: 'wait_progress',
        at: at(),
        reason: wait.reason,
        until,
        remainingMs: left,
      });
    }
  }
  const interrupted = deps.signal.aborted;
  await deps.emit({ type: 'wait_finished', at: at(), reason: wait.reason, interrupted });
  return !interrupted;
}
