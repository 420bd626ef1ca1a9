import { describe, expect, it } from 'vitest';
import { currentWindows, nextUsageWindows, paceDecision } from './usage-windows.js';

const AT = new Date('2026-11-22T12:00:00Z');
const RESET = Date.parse('2026-11-22T14:00:00Z');

describe('usage windows', () => {
  it('takes the event window and every unifiedWindows entry; later readings win', () => {
    const windows = nextUsageWindows(
      {},
      [
        { status: 'allowed', resetsAt: RESET, rateLimitType: 'five_hour', utilization: 0.5 },
        {
          status: 'allowed_warning',
          resetsAt: RESET,
          rateLimitType: 'five_hour',
          windows: {
            five_hour: { utilization: 0.91, resetsAt: RESET, status: undefined },
            seven_day: { utilization: 0.2, resetsAt: RESET + 86_400_000, status: 'allowed' },
          },
        },
      ],
      AT,
    );
    expect(windows).toEqual({
      five_hour: {
        utilization: 0.91,
        resetsAt: '2026-11-22T14:00:00.000Z',
        status: 'allowed_warning',
        seenAt: AT.toISOString(),
      },
      seven_day: {
        utilization: 0.2,
        resetsAt: '2026-11-23T14:00:00.000Z',
        status: 'allowed',
        seenAt: AT.toISOString(),
      },
    });
  });

  it('keeps a figure the next reading of the same window leaves out, but not across a reset', () => {
    const first = nextUsageWindows(
      {},
      [{ status: 'allowed', resetsAt: RESET, rateLimitType: 'five_hour', utilization: 0.7 }],
      AT,
    );
    const same = nextUsageWindows(
      first,
      [{ status: 'allowed', resetsAt: RESET, rateLimitType: 'five_hour' }],
      AT,
    );
    expect(same.five_hour?.utilization).toBe(0.7);
    const next = nextUsageWindows(
      first,
      [{ status: 'allowed', resetsAt: RESET + 5 * 3_600_000, rateLimitType: 'five_hour' }],
      AT,
    );
    expect(next.five_hour?.utilization).toBeUndefined();
  });

  it('forgets windows that have reset', () => {
    const windows = nextUsageWindows(
      {},
      [{ status: 'allowed', resetsAt: RESET, rateLimitType: 'five_hour', utilization: 1 }],
      AT,
    );
    expect(currentWindows(windows, new Date(RESET + 1))).toEqual([]);
    expect(paceDecision(windows, 0.5, new Date(RESET + 1), 0)).toEqual({ wait: false });
  });

  it('paces on a rejected window even without a figure, never with pacing off', () => {
    const windows = nextUsageWindows(
      {},
      [{ status: 'rejected', resetsAt: RESET, rateLimitType: 'seven_day_opus' }],
      AT,
    );
    expect(paceDecision(windows, 0, AT, 60_000)).toEqual({ wait: false });
    expect(paceDecision(windows, 0.99, AT, 60_000)).toMatchObject({
      wait: true,
      window: 'seven_day_opus',
      utilization: 1,
      until: new Date(RESET + 60_000),
    });
  });
});
