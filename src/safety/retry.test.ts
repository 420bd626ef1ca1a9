import { describe, expect, it } from 'vitest';
import { RECENT_RESET_MS, usageLimitWaitUntil, type UsageLimit } from './limits.js';
import { nextRetry, type RetryConfig } from './retry.js';
import { DEFAULT_SAFETY } from './settings.js';

const RETRY: RetryConfig = DEFAULT_SAFETY.retry;
const fixed = (value: number) => () => value;

describe('retry backoff', () => {
  it.each([
    { retriesSoFar: 0, random: 0.5, delayMs: 2000 },
    { retriesSoFar: 1, random: 0.5, delayMs: 4000 },
    { retriesSoFar: 2, random: 0.5, delayMs: 8000 },
    { retriesSoFar: 0, random: 0, delayMs: 1600 }, // -20 %
    { retriesSoFar: 0, random: 0.999999, delayMs: 2400 }, // +20 %
    { retriesSoFar: 2, random: 0.25, delayMs: 7200 },
  ])(
    'retry $retriesSoFar+1 with random $random waits $delayMs ms',
    ({ retriesSoFar, random, delayMs }) => {
      expect(nextRetry(retriesSoFar, RETRY, fixed(random))).toEqual({
        retry: true,
        retryNumber: retriesSoFar + 1,
        delayMs,
      });
    },
  );

  it('gives up after maxRetries', () => {
    expect(nextRetry(3, RETRY, fixed(0.5))).toEqual({
      retry: false,
      why: 'gave up after 3 retries',
    });
    expect(nextRetry(0, { ...RETRY, maxRetries: 0 }, fixed(0.5)).retry).toBe(false);
  });

  it('caps the delay', () => {
    expect(nextRetry(9, { ...RETRY, maxRetries: 20 }, fixed(0.5))).toMatchObject({
      delayMs: 60_000,
    });
  });
});

describe('usage-limit wait', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  const limit = (resetAt: string | undefined): UsageLimit => ({
    resetAt: resetAt === undefined ? undefined : new Date(resetAt),
    source: 'result',
    message: 'limit',
    window: undefined,
  });
  const backoff = DEFAULT_SAFETY.usageLimit;

  it('waits until the reset plus one minute', () => {
    expect(usageLimitWaitUntil(limit('2026-11-22T17:00:00Z'), now, 0, backoff)).toEqual({
      until: new Date('2026-11-22T17:01:00Z'),
      known: true,
    });
  });

  it('resumes at the reset plus the margin when the reset passed moments ago', () => {
    // Read at 12:00:00 for a reset at 11:59:58 (the agent exited late, the machine was busy).
    expect(usageLimitWaitUntil(limit('2026-11-22T11:59:58Z'), now, 0, backoff)).toEqual({
      until: new Date('2026-11-22T12:00:58Z'),
      known: true,
    });
  });

  it('resumes now, not after a backoff, when the reset and its margin are both past', () => {
    for (const resetAt of ['2026-11-22T11:58:30Z', '2026-11-22T11:00:01Z']) {
      expect(usageLimitWaitUntil(limit(resetAt), now, 3, backoff), resetAt).toEqual({
        until: now,
        known: true,
      });
    }
    const noMargin = { ...backoff, marginMs: 0 };
    expect(usageLimitWaitUntil(limit('2026-11-22T11:59:59Z'), now, 0, noMargin)).toEqual({
      until: now,
      known: true,
    });
  });

  it('backs off like an unknown reset when the reset given is more than an hour past', () => {
    expect(RECENT_RESET_MS).toBe(3_600_000);
    expect(usageLimitWaitUntil(limit('2026-11-22T10:59:59Z'), now, 1, backoff)).toEqual({
      until: new Date('2026-11-22T12:10:00Z'),
      known: false,
    });
    const window = 5 * 60_000;
    expect(usageLimitWaitUntil(limit('2026-11-22T11:54:59Z'), now, 0, backoff, window)).toEqual({
      until: new Date('2026-11-22T12:05:00Z'),
      known: false,
    });
  });

  it.each([
    [0, 5],
    [1, 10],
    [2, 20],
    [3, 40],
    [4, 60],
    [12, 60],
  ])(
    'backs off (limit %i in a row without a reset time) %i minutes, at most an hour',
    (streak, minutes) => {
      expect(
        usageLimitWaitUntil(limit(undefined), now, streak, backoff).until.getTime() - now.getTime(),
      ).toBe(minutes * 60_000);
    },
  );
});
