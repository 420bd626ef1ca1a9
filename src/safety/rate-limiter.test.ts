import { describe, expect, it } from 'vitest';
import {
  checkRate,
  EMPTY_RATE_WINDOW,
  nextRateWindow,
  RATE_WINDOW_MS,
  rateWindowSchema,
  type RateLimitConfig,
  type RateWindow,
} from './rate-limiter.js';

const T0 = new Date('2026-11-22T12:00:00Z').getTime();
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

/** A window with one call at each of `minutes` (each using `tokens`). */
function calls(minutes: number[], tokens = 0): RateWindow {
  let state = EMPTY_RATE_WINDOW;
  for (const minute of minutes) {
    state = nextRateWindow(state, { type: 'call_started' }, at(minute));
    state = nextRateWindow(state, { type: 'call_finished', tokens }, at(minute));
  }
  return state;
}

const THREE_PER_HOUR: RateLimitConfig = { callsPerHour: 3, tokensPerHour: undefined };

describe('rate limiter (sliding one-hour window)', () => {
  it.each([
    { name: 'an empty window allows', window: [], now: 0, allowed: true, until: undefined },
    { name: 'below the limit allows', window: [0, 10], now: 20, allowed: true, until: undefined },
    {
      name: 'at the limit waits for the oldest call to leave',
      window: [0, 10, 20],
      now: 30,
      allowed: false,
      until: 60,
    },
    {
      name: 'a call leaving the window frees a slot',
      window: [0, 10, 20],
      now: 60,
      allowed: true,
      until: undefined,
    },
    {
      name: 'over the limit (limit lowered) waits for enough calls to leave',
      window: [0, 5, 10, 15, 20],
      now: 30,
      allowed: false,
      until: 70,
    },
    {
      name: 'calls older than an hour do not count',
      window: [-120, -61, 0, 10],
      now: 20,
      allowed: true,
      until: undefined,
    },
  ])('$name', ({ window, now, allowed, until }) => {
    const decision = checkRate(calls(window), THREE_PER_HOUR, at(now));
    expect(decision.allowed).toBe(allowed);
    if (!decision.allowed) {
      expect(decision.until).toEqual(at(until ?? 0));
      expect(decision.reason).toMatch(/agent calls in the last hour \(limit 3\)/);
    }
  });

  it('limits tokens per hour when configured, waiting until enough tokens leave', () => {
    const config: RateLimitConfig = { callsPerHour: 0, tokensPerHour: 1000 };
    const window = calls([0, 10, 20], 400); // 1200 tokens
    const decision = checkRate(window, config, at(30));
    expect(decision).toMatchObject({ allowed: false, tokens: 1200 });
    // Once the call at minute 0 leaves, 800 < 1000.
    if (!decision.allowed) expect(decision.until).toEqual(at(60));
    expect(checkRate(window, config, at(60)).allowed).toBe(true);
  });

  it('has no limit with callsPerHour 0', () => {
    const window = calls(Array.from({ length: 500 }, (_, i) => i / 10));
    expect(checkRate(window, { callsPerHour: 0, tokensPerHour: undefined }, at(50)).allowed).toBe(
      true,
    );
  });

  it('adds tokens to the call that started last and drops calls that left the window', () => {
    let state = calls([0]);
    state = nextRateWindow(state, { type: 'call_started' }, at(61));
    state = nextRateWindow(state, { type: 'call_finished', tokens: 250 }, at(62));
    expect(state.calls).toEqual([{ at: at(61).getTime(), tokens: 250 }]);
  });

  it('survives a restart: the window round-trips through its schema', () => {
    const window = calls([0, 10, 20], 5);
    const restored = rateWindowSchema.parse(JSON.parse(JSON.stringify(window)));
    expect(checkRate(restored, THREE_PER_HOUR, at(30))).toMatchObject({ allowed: false, calls: 3 });
    expect(RATE_WINDOW_MS).toBe(3_600_000);
  });
});
