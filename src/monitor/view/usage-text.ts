import type { LoopEvent, UsageWindowView } from '../../core/events.js';

/**
 * The words for Claude Code's API retries and the subscription's usage windows, shared by the
 * text reporter, `ralph status`, the TUI and the web page so they read the same.
 */

type RetryEvent = Extract<LoopEvent, { type: 'agent_retry' }>;

/** "retrying (attempt 3 of 10, 429 rate_limit, next in 2s)". */
export function retryText(
  event: Omit<RetryEvent, 'type' | 'at' | 'iteration' | 'attempt'>,
): string {
  const parts = [
    event.retry === undefined
      ? 'attempt ?'
      : `attempt ${event.retry}${event.maxRetries === undefined ? '' : ` of ${event.maxRetries}`}`,
  ];
  const what = [event.errorStatus, event.error].filter((each) => each !== undefined).join(' ');
  if (what !== '') parts.push(what);
  if (event.delayMs !== undefined) parts.push(`next in ${duration(event.delayMs)}`);
  return `retrying (${parts.join(', ')})`;
}

const LABELS: Readonly<Record<string, string>> = {
  five_hour: '5-hour',
  seven_day: 'weekly',
  seven_day_opus: 'weekly Opus',
  seven_day_sonnet: 'weekly Sonnet',
  overage: 'extra usage',
};

/** One line per window still ahead of its reset: "5-hour 91 % (resets in 2h 05m)". */
export function windowLines(
  windows: Readonly<Record<string, UsageWindowView>>,
  now: Date,
  pace?: number,
): string[] {
  return Object.entries(windows).flatMap(([name, window]) => {
    const reset = window.resetsAt === undefined ? undefined : Date.parse(window.resetsAt);
    if (reset !== undefined && reset <= now.getTime()) return [];
    const used =
      window.utilization === undefined
        ? 'use unknown'
        : `${Math.round(window.utilization * 100)} %`;
    const status =
      window.status === undefined || window.status === 'allowed' ? '' : `, ${window.status}`;
    const paced =
      pace !== undefined &&
      pace > 0 &&
      window.utilization !== undefined &&
      window.utilization >= pace
        ? ', pacing'
        : '';
    const resets = reset === undefined ? '' : ` (resets in ${duration(reset - now.getTime())})`;
    return [`${LABELS[name] ?? name.replaceAll('_', ' ')} ${used}${status}${paced}${resets}`];
  });
}

/** "2h05m", "4m10s", "12s" (as describe.ts writes durations; kept here to avoid an import cycle). */
function duration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}
