/**
 * Time as a dependency: the loop and every safety policy take a Clock, so tests drive time
 * instead of waiting for it.
 */
export interface Clock {
  now(): Date;
  /** Resolves after `ms`, or early (without throwing) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** setTimeout's limit: a longer delay fires at once (with a warning), so long waits go in steps. */
const LONGEST_TIMER_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: async (ms, signal) => {
    let left = ms;
    while (left > 0 && signal?.aborted !== true) {
      const step = Math.min(left, LONGEST_TIMER_MS);
      await timer(step, signal);
      left -= step;
    }
  },
};

function timer(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const handle = setTimeout(done, ms);
    function done(): void {
      clearTimeout(handle);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
