import { readLock } from '../state/lock.js';
import type { MonitorView } from './view/reducer.js';

/**
 * Whether the run a view says is RUNNING still has a process. events.jsonl cannot tell: a run
 * killed with SIGKILL (or a crashed machine) writes no last event, and its view would stay
 * RUNNING with a clock counting forever. `ralph list` asks the lock; the monitors ask the same.
 */

export const LIVENESS_INTERVAL_MS = 2000;

/** The view as it stands now: RUNNING without a live process is ORPHANED, its clock stopped. */
export function withLiveness(view: MonitorView, alive: boolean): MonitorView {
  if (view.state !== 'RUNNING' || alive) return view;
  return {
    ...view,
    state: 'ORPHANED',
    ...(view.updatedAt === undefined ? {} : { finishedAt: view.updatedAt }),
    exitReason: 'its process is gone without recording an end; `ralph run` resumes it',
  };
}

/** Checks the loop's lock every `intervalMs` and reports changes (alive first assumed). */
export function watchLiveness(
  loopDir: string,
  onChange: (alive: boolean) => void,
  intervalMs = LIVENESS_INTERVAL_MS,
): () => void {
  let alive = true;
  let stopped = false;
  const check = async (): Promise<void> => {
    const lock = await readLock(loopDir).catch(() => undefined);
    const now = lock?.alive === true;
    if (stopped || now === alive) return;
    alive = now;
    onChange(alive);
  };
  void check();
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
