import type { IterationRow, MonitorView, StoryRow } from './reducer.js';

/** The clock-dependent numbers of a view, computed at render time from `now` (epoch ms). */
export interface Derived {
  /** How long the run has been going (or went, once finished). */
  elapsedMs: number | undefined;
  /** How long the current iteration has been running. */
  iterationMs: number | undefined;
  /** Agent calls started within the last hour (ralph's sliding window). */
  callsThisHour: number;
  /** When the oldest of those leaves the window, in ms from now. */
  callsFreeInMs: number | undefined;
  /** The hourly limit, when the rate limiter has reported it. */
  callsLimit: number | undefined;
  /** Time left until a usage-limit or rate-limit wait ends. */
  waitLeftMs: number | undefined;
  waitReason: string | undefined;
  lastFinished: IterationRow | undefined;
  currentStory: StoryRow | undefined;
}

const HOUR_MS = 3_600_000;

export function derive(view: MonitorView, now: number): Derived {
  const started = parse(view.startedAt);
  const finished = view.state === 'RUNNING' ? undefined : parse(view.finishedAt);
  const calls = view.callTimes
    .map((at) => Date.parse(at))
    .filter((at) => Number.isFinite(at) && at > now - HOUR_MS);
  const oldest = calls.length > 0 ? Math.min(...calls) : undefined;
  const wait = view.safety.wait;
  const waitUntil = parse(wait?.until);
  const currentStart = parse(view.current?.startedAt);
  return {
    elapsedMs: started === undefined ? undefined : (finished ?? now) - started,
    iterationMs: currentStart === undefined ? undefined : now - currentStart,
    // Counted from the events, so it falls as calls leave the window between iterations.
    callsThisHour: calls.length,
    callsFreeInMs: oldest === undefined ? undefined : oldest + HOUR_MS - now,
    callsLimit: view.safety.rate?.limit,
    waitLeftMs: waitUntil === undefined ? undefined : Math.max(0, waitUntil - now),
    waitReason: wait === undefined ? undefined : wait.reason.replace('_', ' '),
    lastFinished: [...view.iterations].reverse().find((row) => row.finishedAt !== undefined),
    currentStory:
      view.current === undefined
        ? undefined
        : view.stories.find((story) => story.id === view.current?.storyId),
  };
}

function parse(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}
