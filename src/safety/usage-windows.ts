import * as z from 'zod';

/**
 * The subscription's usage windows (issue 15, item 2): how much of the 5-hour and the weekly
 * allowance is used and when each resets, as Claude Code's `rate_limit_event` lines report them
 * (`unifiedWindows`, or the event's own `rateLimitType` with its `utilization`). Kept in
 * safety.json so `ralph status` shows them between runs, and read by pacing: with `limits.pace`
 * set, ralph does not start an iteration while a window is at least that used, and waits for its
 * reset instead (the usage-limit wait). Pure functions; the loop holds the state.
 */

const timestamp = z.iso.datetime({ offset: true });

export const usageWindowSchema = z.looseObject({
  /** 0–1; absent when the event named the window without a figure. */
  utilization: z.number().min(0).max(1).optional(),
  resetsAt: timestamp.optional(),
  /** allowed, allowed_warning or rejected. */
  status: z.string().optional(),
  /** When ralph read it. */
  seenAt: timestamp,
});
export type UsageWindow = z.infer<typeof usageWindowSchema>;
export type UsageWindows = Readonly<Record<string, UsageWindow>>;

/** What one rate_limit_event says (the agent port's RateLimitInfo, matched structurally). */
export interface UsageReading {
  status: string;
  resetsAt: number | undefined;
  rateLimitType: string | undefined;
  utilization?: number | undefined;
  windows?:
    | Readonly<
        Record<
          string,
          {
            utilization: number | undefined;
            resetsAt: number | undefined;
            status: string | undefined;
          }
        >
      >
    | undefined;
}

/** The windows after `readings` (in the order they were printed): later readings win. */
export function nextUsageWindows(
  current: UsageWindows,
  readings: readonly UsageReading[],
  at: Date,
): UsageWindows {
  const next: Record<string, UsageWindow> = { ...current };
  const seenAt = at.toISOString();
  const put = (
    name: string,
    reading: { utilization?: number | undefined; resetsAt?: number | undefined; status?: string },
  ): void => {
    const before = next[name];
    // A reading of a later window (a reset in between) starts afresh; the same window merges.
    const same = before !== undefined && before.resetsAt === iso(reading.resetsAt);
    const utilization = reading.utilization ?? (same ? before.utilization : undefined);
    const resetsAt = iso(reading.resetsAt) ?? before?.resetsAt;
    const status = reading.status ?? (same ? before.status : undefined);
    next[name] = {
      ...(utilization === undefined ? {} : { utilization }),
      ...(resetsAt === undefined ? {} : { resetsAt }),
      ...(status === undefined ? {} : { status }),
      seenAt,
    };
  };
  for (const reading of readings) {
    if (reading.rateLimitType !== undefined) {
      put(reading.rateLimitType, {
        utilization: reading.utilization,
        resetsAt: reading.resetsAt,
        status: reading.status,
      });
    }
    for (const [name, window] of Object.entries(reading.windows ?? {})) {
      put(name, {
        utilization: window.utilization,
        resetsAt: window.resetsAt,
        ...(window.status === undefined ? {} : { status: window.status }),
      });
    }
  }
  return next;
}

/** The windows whose reset is still ahead (a window that has reset is empty again). */
export function currentWindows(windows: UsageWindows, now: Date): [string, UsageWindow][] {
  return Object.entries(windows).filter(
    ([, window]) => window.resetsAt === undefined || Date.parse(window.resetsAt) > now.getTime(),
  );
}

export type PaceDecision =
  | { wait: false }
  | { wait: true; window: string; utilization: number; until: Date; detail: string };

/**
 * Whether to hold back the next iteration: a window at or above `threshold` (0 = pacing off)
 * whose reset is ahead, or one Claude Code reported as rejected. The window that resets last
 * decides the wait (waiting for an earlier one would only meet the later one).
 */
export function paceDecision(
  windows: UsageWindows,
  threshold: number,
  now: Date,
  marginMs: number,
): PaceDecision {
  if (threshold <= 0) return { wait: false };
  let worst: { name: string; utilization: number; resetsAt: number } | undefined;
  for (const [name, window] of currentWindows(windows, now)) {
    if (window.resetsAt === undefined) continue;
    const utilization = window.status === 'rejected' ? 1 : window.utilization;
    if (utilization === undefined || utilization < threshold) continue;
    const resetsAt = Date.parse(window.resetsAt);
    if (worst === undefined || resetsAt > worst.resetsAt) worst = { name, utilization, resetsAt };
  }
  if (worst === undefined) return { wait: false };
  const until = new Date(worst.resetsAt + marginMs);
  return {
    wait: true,
    window: worst.name,
    utilization: worst.utilization,
    until,
    detail: `pacing: the ${windowLabel(worst.name)} window is ${percent(worst.utilization)} used (limits.pace ${percent(threshold)}); waiting for its reset at ${new Date(worst.resetsAt).toISOString()}`,
  };
}

const LABELS: Readonly<Record<string, string>> = {
  five_hour: '5-hour',
  seven_day: 'weekly',
  seven_day_opus: 'weekly Opus',
  seven_day_sonnet: 'weekly Sonnet',
  overage: 'extra usage',
};

/** "5-hour", "weekly", or the name as Claude Code gave it. */
export function windowLabel(name: string): string {
  return LABELS[name] ?? name.replaceAll('_', ' ');
}

export function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}

function iso(epochMs: number | undefined): string | undefined {
  return epochMs === undefined || !Number.isFinite(epochMs)
    ? undefined
    : new Date(epochMs).toISOString();
}
