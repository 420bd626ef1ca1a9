import {
  firstLine,
  ownTexts,
  runFailed,
  TIMEOUT_EXIT_CODE,
  type RunEvidence,
  type TextSource,
} from './evidence.js';
import { parseResetTime } from './reset-time.js';

/**
 * The usage-limit classifier (issue 4, item 6). A usage limit is the subscription's 5-hour or
 * weekly allowance running out: worth waiting for, unlike an org's monthly spend limit (fatal,
 * see retry.ts). Evidence is read in order of trust:
 *   1. a `rate_limit_event` with status "rejected" (its `resetsAt`), unless a later event of the
 *      same window says "allowed" again;
 *   2. the result text, then the agent's final assistant text — only their first line, only
 *      when it is shaped like Claude Code's message (starts with "… limit reached" or "You've
 *      hit your limit"), never a tool result or the prompt (those are not in the evidence);
 *   3. stderr, when the run failed.
 * A run ralph killed for taking too long (or exit 124 from a `timeout` wrapper) is never a
 * usage limit, whatever it printed.
 */

export interface UsageLimit {
  /** When the limit resets, if the evidence says. */
  resetAt: Date | undefined;
  source: 'rate_limit_event' | TextSource;
  /** The message (or a description of the event) that showed the limit. */
  message: string;
  /** Which window: five_hour, seven_day, … when the event names it. */
  window: string | undefined;
}

export interface ClassifyContext {
  /** When the run ended: relative reset times ("resets 5am") count from here. */
  now: Date;
  /** The zone for reset times that name none. */
  timeZone: string;
}

const PREFIX = String.raw`^(?:(?:API\s+)?Error:\s*)?`;
const MODEL = String.raw`(?:(?:Claude|Claude\s+AI|Claude\s+Code)\s+)?(?:(?:Opus|Sonnet|Haiku|Fable)(?:\s+[\d.]+)?\s+)?`;
/** The windows Claude Code names: its own table has 5-hour, weekly, Opus, Sonnet and Fable. */
const WINDOW = String.raw`(?:usage|5[- ]hour|five[- ]hour|weekly|session|daily|opus|sonnet|fable)(?:\s+(?:weekly|usage))?`;
const YOU_HAVE = String.raw`You(?:(?:'|’)ve|\s+have)`;
const LIMIT_MESSAGE = new RegExp(
  [
    `${PREFIX}${MODEL}${WINDOW}\\s+limit\\s+(?:reached|exceeded)\\b`,
    `${PREFIX}${YOU_HAVE}\\s+(?:hit|reached)\\s+your\\s+(?:${WINDOW}\\s+)?limit\\b`,
    // "out of extra usage" comes back at the reset; "out of usage credits" is bought (failures.ts).
    `${PREFIX}You(?:'|’)re\\s+out\\s+of\\s+(?:extra\\s+)?usage\\b(?!\\s+credits)`,
  ].join('|'),
  'i',
);
/** The terminal UI's decorations before a message: its ⎿ gutter, ● bullets, a > prompt. */
const DECORATION = /^[\s⎿●•❯>│*]+/u;
/**
 * The API's 429 body behind a subscription's usage limit: no reset time in it, but not the
 * per-minute rate limit (that one names the organisation and a per-minute figure).
 */
const ACCOUNT_RATE_LIMIT = /exceed your account(?:'|’)s rate limit/i;
/** The legacy `-p` form: `Claude AI usage limit reached|<epoch>`. */
const LEGACY_EPOCH = /usage limit reached\s*\|\s*(\d{9,13})\b/i;
const RESET_WORD = /\breset/i;
/** Real limit messages are one short line; an agent's prose about limits is not. */
const MAX_MESSAGE_CHARS = 300;

export function detectUsageLimit(
  evidence: RunEvidence,
  context: ClassifyContext,
): UsageLimit | undefined {
  if (evidence.timedOut || evidence.exitCode === TIMEOUT_EXIT_CODE || evidence.canceled) {
    return undefined;
  }
  const failed = runFailed(evidence);
  const texts = ownTexts(evidence);
  if (failed) {
    for (const line of evidence.stderrTail.split('\n')) {
      if (line.trim() !== '') texts.push({ source: 'stderr', text: line });
    }
  }
  const textLimits = texts.flatMap((candidate) => {
    const limit = limitInText(candidate.text, candidate.source, failed, context);
    return limit === undefined ? [] : [limit];
  });

  const rejected = rejectedEvent(evidence);
  if (rejected !== undefined) {
    const text = textLimits[0];
    return {
      resetAt: rejected.resetsAt === undefined ? text?.resetAt : new Date(rejected.resetsAt),
      source: 'rate_limit_event',
      message:
        text?.message ??
        `rate_limit_event rejected (${rejected.rateLimitType ?? 'window unknown'})`,
      window: rejected.rateLimitType,
    };
  }
  if (textLimits[0] !== undefined) return textLimits[0];
  return failed ? accountRateLimit(texts) : undefined;
}

/** The usage limit's raw 429 body, wherever a failed run printed it: reset time unknown. */
function accountRateLimit(texts: readonly { source: TextSource; text: string }[]) {
  const found = texts.find((candidate) => ACCOUNT_RATE_LIMIT.test(candidate.text));
  if (found === undefined) return undefined;
  const line = found.text.split('\n').find((each) => ACCOUNT_RATE_LIMIT.test(each)) ?? found.text;
  return {
    resetAt: undefined,
    source: found.source,
    message: line.trim().slice(0, MAX_MESSAGE_CHARS),
    window: undefined,
  } satisfies UsageLimit;
}

function limitInText(
  text: string,
  source: TextSource,
  failed: boolean,
  context: ClassifyContext,
): UsageLimit | undefined {
  const line = (source === 'stderr' ? text.trim() : firstLine(text)).replace(DECORATION, '');
  if (line.length > MAX_MESSAGE_CHARS) return undefined;
  const legacy = LEGACY_EPOCH.exec(line);
  if (legacy?.[1] !== undefined && LIMIT_MESSAGE.test(line)) {
    const epoch = Number(legacy[1]);
    return {
      resetAt: new Date(epoch < 1e11 ? epoch * 1000 : epoch),
      source,
      message: line,
      window: undefined,
    };
  }
  if (!LIMIT_MESSAGE.test(line)) return undefined;
  const resetAt = parseResetTime(line, context.now, context.timeZone);
  // Without a reset time the words alone could be prose; a limit message then comes with a failure.
  if (resetAt === undefined && !RESET_WORD.test(line) && !failed) return undefined;
  return { resetAt, source, message: line, window: undefined };
}

/** The latest rejected event whose window did not report "allowed" again afterwards. */
function rejectedEvent(evidence: RunEvidence): RunEvidence['rateLimits'][number] | undefined {
  const latest = new Map<string, RunEvidence['rateLimits'][number]>();
  for (const event of evidence.rateLimits) latest.set(event.rateLimitType ?? '', event);
  const rejected = [...latest.values()].filter((event) => event.status === 'rejected');
  return rejected.sort((a, b) => (b.resetsAt ?? 0) - (a.resetsAt ?? 0))[0];
}

export interface UsageLimitBackoff {
  /** Added to a known reset time: the limit is lifted a little after the stated minute. */
  marginMs: number;
  /** The first wait when no reset time is known; doubles on each further limit in a row. */
  unknownBaseMs: number;
  /** The longest such wait (1 hour by default). */
  unknownMaxMs: number;
}

/**
 * How long ago a stated reset may lie and still be believed. The limit was read moments ago, so
 * a reset that has just passed means the window has turned over (a busy machine, a slow agent
 * exit or a clock a little off put it behind us): resume now. A reset far in the past is stale
 * evidence (an old event replayed, a wrong clock) and says nothing about when the limit lifts.
 * An hour: well inside the shortest (5-hour) window, well beyond any exit or classification delay.
 */
export const RECENT_RESET_MS = 60 * 60 * 1000;

/**
 * Until when to wait for a limit: its reset plus the margin (at once if that is already past, for
 * a reset within `recentResetMs` before now); or, when no reset time is known (or the one given
 * is older than that, so it cannot be trusted), a backoff that doubles with each such limit in a
 * row (`streak`, 0 for the first) up to the cap. `known` says which it was.
 */
export function usageLimitWaitUntil(
  limit: UsageLimit,
  now: Date,
  streak: number,
  backoff: UsageLimitBackoff,
  recentResetMs = RECENT_RESET_MS,
): { until: Date; known: boolean } {
  const resetAt = limit.resetAt?.getTime();
  if (resetAt !== undefined && resetAt >= now.getTime() - recentResetMs) {
    return { until: new Date(Math.max(now.getTime(), resetAt + backoff.marginMs)), known: true };
  }
  const wait = Math.min(backoff.unknownMaxMs, backoff.unknownBaseMs * 2 ** Math.min(streak, 30));
  return { until: new Date(now.getTime() + wait), known: false };
}
