import { describe, expect, it } from 'vitest';
import type { Clock } from '../safety/clock.js';
import type { LoopEvent } from './events.js';
import { waitUntil, WAIT_TICK_MS } from './waits.js';

/** A clock whose sleep moves time forward at once (or not at all: `frozen`). */
function fakeClock(start: string, options: { frozen?: boolean } = {}) {
  let now = Date.parse(start);
  const sleeps: number[] = [];
  const clock: Clock & { sleeps: number[] } = {
    sleeps,
    now: () => new Date(now),
    sleep: (ms, signal) => {
      sleeps.push(ms);
      if (signal?.aborted !== true && options.frozen !== true) now += ms;
      return Promise.resolve();
    },
  };
  return clock;
}

describe('waitUntil', () => {
  it('waits in one-minute ticks that report the time left, then finishes', async () => {
    const clock = fakeClock('2026-11-22T12:00:00Z');
    const events: LoopEvent[] = [];
    const done = await waitUntil(
      {
        clock,
        signal: new AbortController().signal,
        emit: (e) => Promise.resolve(void events.push(e)),
      },
      { reason: 'usage_limit', until: new Date('2026-11-22T12:02:30Z'), detail: 'limit' },
    );
    expect(done).toBe(true);
    expect(clock.sleeps).toEqual([WAIT_TICK_MS, WAIT_TICK_MS, 30_000]);
    expect(events.map((e) => e.type)).toEqual([
      'wait_started',
      'wait_progress',
      'wait_progress',
      'wait_finished',
    ]);
    expect(events[0]).toMatchObject({ until: '2026-11-22T12:02:30.000Z', durationMs: 150_000 });
    expect(events[1]).toMatchObject({ remainingMs: 90_000 });
    expect(events[3]).toMatchObject({ interrupted: false });
  });

  it('ends even when the clock stands still', async () => {
    const clock = fakeClock('2026-11-22T12:00:00Z', { frozen: true });
    const done = await waitUntil(
      { clock, signal: new AbortController().signal, emit: () => Promise.resolve() },
      { reason: 'retry', until: new Date('2026-11-22T12:03:00Z'), detail: 'retry' },
    );
    expect(done).toBe(true);
    expect(clock.sleeps).toEqual([60_000, 60_000, 60_000]);
  });

  it('returns false at once when the signal aborts (Ctrl+C pauses the wait)', async () => {
    const clock = fakeClock('2026-11-22T12:00:00Z');
    const controller = new AbortController();
    const events: LoopEvent[] = [];
    const done = await waitUntil(
      {
        clock,
        signal: controller.signal,
        emit: (e) => {
          events.push(e);
          if (e.type === 'wait_progress') controller.abort();
          return Promise.resolve();
        },
      },
      { reason: 'usage_limit', until: new Date('2026-11-22T17:00:00Z'), detail: 'limit' },
    );
    expect(done).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'wait_finished', interrupted: true });
    expect(clock.sleeps).toHaveLength(1);
  });

  it('does not wait for a time already past', async () => {
    const clock = fakeClock('2026-11-22T12:00:00Z');
    const events: LoopEvent[] = [];
    expect(
      await waitUntil(
        {
          clock,
          signal: new AbortController().signal,
          emit: (e) => Promise.resolve(void events.push(e)),
        },
        { reason: 'rate_limit', until: new Date('2026-11-22T11:00:00Z'), detail: 'x' },
      ),
    ).toBe(true);
    expect(events).toEqual([]);
  });
});
