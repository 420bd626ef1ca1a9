import { cooldownEnds } from '../../safety/circuit-breaker.js';
import { checkRate } from '../../safety/rate-limiter.js';
import { readSafety } from '../../safety/store.js';
import type { Config } from '../../state/config-schema.js';
import type { Status } from '../../state/status.js';
import { writeLine } from '../context.js';
import { safetySettingsFrom } from '../../safety/settings.js';
import { retryText, windowLines } from '../../monitor/view/usage-text.js';

/**
 * The safety part of `ralph status`: cost and tokens (run, per story), the circuit breaker, a
 * wait in progress or pending, and the hourly call count, from status.json and safety.json.
 */
export interface SafetyReport {
  breaker: {
    state: string;
    noProgress: string;
    sameError: string;
    permissionDenials: string;
    reason: string | null;
    /** When an OPEN breaker lets the next run try again. */
    halfOpenAfter: string | null;
  };
  /** Cost and tokens of every story ralph has run an agent on (all runs). */
  stories: Record<string, { costUsd: number; attempts: number; tokens: Record<string, number> }>;
  /** A usage-limit wait the next run starts with (or the running one is in). */
  usageLimit: {
    until: string;
    resetAt: string | null;
    message: string;
    storyId: string;
    /** What the next `ralph run` does about it (config usageLimit.action). */
    nextRun: Config['usageLimit']['action'];
  } | null;
  rate: { callsLastHour: number; callsPerHour: number | null; tokensLastHour: number };
  /** The subscription's usage windows as Claude Code last reported them (safety.json). */
  usageWindows: Record<
    string,
    { utilization: number | null; resetsAt: string | null; status: string | null; seenAt: string }
  >;
  /** limits.pace, or null when pacing is off. */
  pace: number | null;
}

export async function safetyReport(
  loopDir: string,
  config: Config,
  now: Date,
): Promise<SafetyReport> {
  const settings = safetySettingsFrom(config, false);
  const state = await readSafety(loopDir, now);
  const breaker = state.breaker;
  const of = (count: number, threshold: number): string =>
    threshold > 0 ? `${count}/${threshold}` : `${count} (off)`;
  const pending = state.usageLimit.pending;
  const rate = checkRate(state.rateLimit, settings.rateLimit, now);
  return {
    breaker: {
      state: breaker.state,
      noProgress: of(breaker.noProgress, settings.breaker.noProgressThreshold),
      sameError: of(breaker.sameError, settings.breaker.sameErrorThreshold),
      permissionDenials: of(breaker.permissionDenials, settings.breaker.permissionDenialThreshold),
      reason: breaker.reason ?? null,
      halfOpenAfter: cooldownEnds(breaker, settings.breaker)?.toISOString() ?? null,
    },
    stories: Object.fromEntries(
      Object.entries(state.budget.stories).map(([id, spent]) => [
        id,
        { costUsd: spent.costUsd, attempts: spent.attempts, tokens: { ...spent.tokens } },
      ]),
    ),
    usageLimit:
      pending === undefined || Date.parse(pending.until) <= now.getTime()
        ? null
        : {
            until: pending.until,
            resetAt: pending.resetAt ?? null,
            message: pending.message,
            storyId: pending.storyId,
            nextRun: settings.usageLimit.action,
          },
    usageWindows: Object.fromEntries(
      Object.entries(state.usageWindows ?? {}).map(([name, window]) => [
        name,
        {
          utilization: window.utilization ?? null,
          resetsAt: window.resetsAt ?? null,
          status: window.status ?? null,
          seenAt: window.seenAt,
        },
      ]),
    ),
    pace: settings.pace > 0 ? settings.pace : null,
    rate: {
      callsLastHour: rate.calls,
      callsPerHour: settings.rateLimit.callsPerHour > 0 ? settings.rateLimit.callsPerHour : null,
      tokensLastHour: rate.tokens,
    },
  };
}

/** The loop's cost over all its runs: safety.json's per-story spend, kept across runs. */
function allRuns(report: SafetyReport): string {
  const spent = Object.values(report.stories);
  if (spent.length === 0) return '';
  return `, $${spent.reduce((sum, story) => sum + story.costUsd, 0).toFixed(4)} all runs`;
}

export function printSafety(
  out: NodeJS.WritableStream,
  status: Status | undefined,
  report: SafetyReport,
  now: Date,
): void {
  const row = (label: string, value: string): void => {
    writeLine(out, `${label.padEnd(16)}${value}`);
  };
  if (status?.costUsd !== undefined) {
    const tokens = status.tokens;
    row(
      'Cost:',
      `$${status.costUsd.toFixed(4)} this run${allRuns(report)}${
        tokens === undefined
          ? ''
          : ` (${tokens.inputTokens} in, ${tokens.outputTokens} out, ${tokens.cacheReadInputTokens} cache read, ${tokens.cacheCreationInputTokens} cache write tokens)`
      }`,
    );
  }
  const last = status?.lastIteration;
  if (last !== undefined) {
    row(
      'Last iteration:',
      `${last.iteration}${last.attempt > 1 ? ` (attempt ${last.attempt})` : ''}: ${last.outcome}${
        last.costUsd === undefined ? '' : `, $${last.costUsd.toFixed(4)}`
      }${last.tokens === undefined ? '' : `, ${tokenCounts(last.tokens)}`}, ${(last.durationMs / 1000).toFixed(1)} s`,
    );
  }
  const stories = Object.entries(report.stories);
  if (stories.length > 0) {
    row(
      'Cost by story:',
      stories
        .map(
          ([id, spent]) =>
            `${id} $${spent.costUsd.toFixed(4)} (${spent.attempts} ${spent.attempts === 1 ? 'run' : 'runs'}) ${tokenCounts(spent.tokens)}`,
        )
        .join(', '),
    );
  }
  const denied = status?.deniedToolCalls;
  if (typeof denied === 'number' && denied > 0) {
    const last = status?.lastDenied as { iteration?: number; tools?: string[] } | undefined;
    row(
      'Denied:',
      `${denied} tool ${denied === 1 ? 'call' : 'calls'} this run${
        last?.tools === undefined
          ? ''
          : ` (last: iteration ${String(last.iteration)}: ${last.tools.join(', ')})`
      }; details: ralph logs --audit`,
    );
  }
  const { breaker } = report;
  row(
    'Breaker:',
    `${breaker.state} (no progress ${breaker.noProgress}, same error ${breaker.sameError}, denials ${breaker.permissionDenials})`,
  );
  if (breaker.reason !== null && breaker.state !== 'CLOSED') row('', breaker.reason);
  if (breaker.halfOpenAfter !== null) {
    row('', `half-open after ${breaker.halfOpenAfter}; or: ralph run --reset-breaker`);
  }
  const waiting = status?.state === 'RUNNING' ? status.waiting : undefined;
  if (waiting !== undefined) {
    const left = Math.max(0, Date.parse(waiting.until) - now.getTime());
    row(
      'Waiting:',
      `${waiting.reason.replace('_', ' ')} until ${waiting.until} (${countdown(left)} left)`,
    );
    row('', waiting.detail);
  } else if (report.usageLimit !== null) {
    const limit = report.usageLimit;
    const next = {
      wait: `the next run waits, then resumes ${limit.storyId}`,
      exit: 'a run started before then exits (--on-usage-limit exit)',
      ask: 'the next run asks whether to wait',
    }[limit.nextRun];
    row(
      'Usage limit:',
      `until ${limit.until} (${countdown(Date.parse(limit.until) - now.getTime())}): ${limit.message}; ${next}`,
    );
  }
  const retrying = status?.state === 'RUNNING' ? status.retrying : undefined;
  if (retrying !== undefined) row('Agent API:', `Claude Code is ${retryText(retrying)}`);
  const windows = windowLines(
    Object.fromEntries(
      Object.entries(report.usageWindows).map(([name, window]) => [
        name,
        {
          ...(window.utilization === null ? {} : { utilization: window.utilization }),
          ...(window.resetsAt === null ? {} : { resetsAt: window.resetsAt }),
          ...(window.status === null ? {} : { status: window.status }),
        },
      ]),
    ),
    now,
    report.pace ?? undefined,
  );
  if (windows.length > 0) {
    row(
      'Usage:',
      `${windows.join('; ')}${report.pace === null ? '' : ` — limits.pace ${Math.round(report.pace * 100)} %`}`,
    );
  }
  // A running loop's own limit (--rate-limit) may differ from the configured one.
  const limit =
    (status?.state === 'RUNNING' ? status.rateLimit?.callsPerHour : undefined) ??
    report.rate.callsPerHour;
  row(
    'Agent calls:',
    `${report.rate.callsLastHour}${limit === null ? '' : `/${limit}`} in the last hour`,
  );
}

function tokenCounts(tokens: Readonly<Record<string, unknown>>): string {
  const count = (value: unknown): number => (typeof value === 'number' ? value : 0);
  return `${count(tokens.inputTokens)} in/${count(tokens.outputTokens)} out tokens`;
}

export function countdown(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}
