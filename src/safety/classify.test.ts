import { describe, expect, it } from 'vitest';
import { classifyRun, type RunClassification } from './classify.js';
import type { RunEvidence } from './evidence.js';

/** A run that went fine: exit 0, a successful result, a few lines. */
function run(overrides: Partial<RunEvidence> = {}): RunEvidence {
  return {
    exitCode: 0,
    timedOut: false,
    canceled: false,
    spawnError: undefined,
    result: {
      isError: false,
      subtype: 'success',
      apiErrorStatus: undefined,
      resultText: 'Done. <promise>STORY_COMPLETE</promise>',
    },
    finalText: 'Done. <promise>STORY_COMPLETE</promise>',
    rateLimits: [],
    stderrTail: '',
    lineCount: 12,
    ...overrides,
  };
}

/** A failed run whose result (and synthetic final message) says `text`. */
function failed(text: string, status?: number, overrides: Partial<RunEvidence> = {}): RunEvidence {
  return run({
    exitCode: 1,
    result: { isError: true, subtype: 'success', apiErrorStatus: status, resultText: text },
    finalText: text,
    ...overrides,
  });
}

/** A run cut before its result line (Claude Code's synthetic message is the last text). */
function cut(finalText: string, exitCode = 1): RunEvidence {
  return run({ exitCode, result: undefined, finalText });
}

const rejected = (resetsAt: number | undefined, window = 'five_hour') => ({
  status: 'rejected',
  resetsAt,
  rateLimitType: window,
});
const allowed = (window = 'five_hour') => ({
  status: 'allowed',
  resetsAt: Date.parse('2026-11-22T17:00:00Z'),
  rateLimitType: window,
});

const NOW = new Date('2026-11-22T12:00:00Z');
const EPOCH = 1755615600;

interface Case {
  name: string;
  evidence: RunEvidence;
  kind: RunClassification['kind'];
  /** ISO reset time for usage limits; null when it must be unknown. */
  resetAt?: string | null;
  source?: string;
  now?: Date;
  timeZone?: string;
}

const CASES: Case[] = [
  // Usage limits: the structured event first.
  {
    name: 'a rejected rate_limit_event with no result line (weekly, resetsAt)',
    evidence: run({
      result: undefined,
      finalText: undefined,
      rateLimits: [rejected(1785322800000, 'seven_day')],
    }),
    kind: 'usage_limit',
    resetAt: '2026-07-29T11:00:00.000Z',
    source: 'rate_limit_event',
  },
  {
    name: 'a rejected event wins over the reset in the text',
    evidence: failed("You've hit your limit · resets 2pm (Asia/Shanghai)", undefined, {
      rateLimits: [allowed(), rejected(Date.parse('2026-11-22T06:00:00Z'))],
    }),
    kind: 'usage_limit',
    resetAt: '2026-11-22T06:00:00.000Z',
    source: 'rate_limit_event',
  },
  {
    name: 'a rejected event without resetsAt takes the reset from the text',
    evidence: failed('5-hour limit reached ∙ resets 5pm', undefined, {
      rateLimits: [rejected(undefined)],
    }),
    kind: 'usage_limit',
    resetAt: '2026-11-22T17:00:00.000Z',
  },
  {
    name: 'negative: a rejected event followed by "allowed" for the same window',
    evidence: run({ rateLimits: [rejected(Date.parse('2026-11-22T13:00:00Z')), allowed()] }),
    kind: 'none',
  },
  {
    name: 'negative: "allowed" events are normal',
    evidence: run({ rateLimits: [allowed(), allowed('seven_day')] }),
    kind: 'none',
  },
  // The result text: legacy epoch form (exit 0, is_error false, as Claude Code really sends it).
  {
    name: 'legacy "usage limit reached|<epoch seconds>" in a successful result',
    evidence: run({
      result: {
        isError: false,
        subtype: 'success',
        apiErrorStatus: undefined,
        resultText: `Claude AI usage limit reached|${EPOCH}`,
      },
    }),
    kind: 'usage_limit',
    resetAt: new Date(EPOCH * 1000).toISOString(),
    source: 'result',
  },
  {
    name: 'legacy form with epoch milliseconds',
    evidence: failed(`Claude AI usage limit reached|${EPOCH}000`),
    kind: 'usage_limit',
    resetAt: new Date(EPOCH * 1000).toISOString(),
  },
  // Wall-clock reset times, zones and rollover.
  {
    name: '"resets 5am" later today (local zone UTC)',
    evidence: failed('5-hour limit reached ∙ resets 5am'),
    now: new Date('2026-11-22T03:00:00Z'),
    kind: 'usage_limit',
    resetAt: '2026-11-22T05:00:00.000Z',
  },
  {
    name: '"resets 5am" already past today rolls over to tomorrow',
    evidence: failed('5-hour limit reached ∙ resets 5am'),
    now: new Date('2026-11-22T06:00:00Z'),
    kind: 'usage_limit',
    resetAt: '2026-11-23T05:00:00.000Z',
  },
  {
    name: '"resets 12pm" is noon, "resets 12am" midnight',
    evidence: failed('5-hour limit reached ∙ resets 12am'),
    now: new Date('2026-11-22T21:00:00Z'),
    kind: 'usage_limit',
    resetAt: '2026-11-23T00:00:00.000Z',
  },
  {
    name: '"resets 3pm (Europe/Stockholm)" in the named zone (UTC+1 in November)',
    evidence: failed("You've hit your limit · resets 3pm (Europe/Stockholm)"),
    kind: 'usage_limit',
    resetAt: '2026-11-22T14:00:00.000Z',
  },
  {
    name: '"resets 3pm (Europe/Stockholm)" in summer time (UTC+2)',
    evidence: failed("You've hit your limit · resets 3pm (Europe/Stockholm)"),
    now: new Date('2026-07-01T08:00:00Z'),
    kind: 'usage_limit',
    resetAt: '2026-07-01T13:00:00.000Z',
  },
  {
    name: '"resets Jan 30, 11:30am (Asia/Calcutta)" read in November is next year',
    evidence: failed('Opus weekly limit reached ∙ resets Jan 30, 11:30am (Asia/Calcutta)'),
    kind: 'usage_limit',
    resetAt: '2027-01-30T06:00:00.000Z',
  },
  {
    name: '"resets Jan 30, 11:30am (Asia/Calcutta)" read in January is this year',
    evidence: failed('Weekly limit reached ∙ resets Jan 30, 11:30am (Asia/Calcutta)'),
    now: new Date('2026-01-25T00:00:00Z'),
    kind: 'usage_limit',
    resetAt: '2026-01-30T06:00:00.000Z',
  },
  {
    name: '"Your limit will reset at 7pm (Asia/Tokyo)" (older wording)',
    evidence: failed('Claude usage limit reached. Your limit will reset at 7pm (Asia/Tokyo).'),
    now: new Date('2026-11-22T05:00:00Z'),
    kind: 'usage_limit',
    resetAt: '2026-11-22T10:00:00.000Z',
  },
  {
    name: '"resets 11:30am" in the local zone when none is named (America/New_York)',
    evidence: failed('Session limit reached ∙ resets 11:30am'),
    timeZone: 'America/New_York',
    kind: 'usage_limit',
    resetAt: '2026-11-22T16:30:00.000Z',
  },
  {
    name: '"resets in 2h 30m" counts from the message',
    evidence: failed('5-hour limit reached ∙ resets in 2h 30m'),
    kind: 'usage_limit',
    resetAt: '2026-11-22T14:30:00.000Z',
  },
  {
    name: 'an unknown zone falls back to the local one',
    evidence: failed("You've hit your limit · resets 1pm (Mars/Olympus_Mons)"),
    kind: 'usage_limit',
    resetAt: '2026-11-22T13:00:00.000Z',
  },
  {
    name: '"API Error: " before the message',
    evidence: failed("API Error: You've hit your limit · resets 1pm (Europe/Lisbon)"),
    kind: 'usage_limit',
    resetAt: '2026-11-22T13:00:00.000Z',
  },
  {
    name: 'the final assistant text of a run cut before its result',
    evidence: cut('5-hour limit reached ∙ resets 9pm'),
    kind: 'usage_limit',
    resetAt: '2026-11-22T21:00:00.000Z',
    source: 'final_text',
  },
  {
    name: 'stderr of a failed run',
    evidence: run({
      exitCode: 1,
      result: undefined,
      finalText: undefined,
      lineCount: 0,
      stderrTail: 'Error: Claude AI usage limit reached|1755615600\n',
    }),
    kind: 'usage_limit',
    source: 'stderr',
  },
  {
    name: 'a failed run saying only "usage limit reached": reset unknown',
    evidence: failed('Claude AI usage limit reached'),
    kind: 'usage_limit',
    resetAt: null,
  },
  // Negatives.
  {
    name: 'negative: "is_error":false with prose about usage limits',
    evidence: run({
      result: {
        isError: false,
        subtype: 'success',
        apiErrorStatus: undefined,
        resultText:
          "I added handling for the 'usage limit reached' message and its resets 5am form. <promise>STORY_COMPLETE</promise>",
      },
    }),
    kind: 'none',
  },
  {
    name: 'negative: a successful final message starting with the words, no reset',
    evidence: run({
      result: {
        isError: false,
        subtype: 'success',
        apiErrorStatus: undefined,
        resultText: 'Usage limit reached errors are now detected by the parser.',
      },
    }),
    kind: 'none',
  },
  {
    name: 'negative: exit 124 with echoed limit text is a timeout',
    evidence: run({
      exitCode: 124,
      result: undefined,
      finalText: `Claude AI usage limit reached|${EPOCH}`,
      stderrTail: "You've hit your limit · resets 5am",
    }),
    kind: 'timeout',
  },
  {
    name: "negative: ralph's own timeout with limit text in the final message",
    evidence: run({
      timedOut: true,
      exitCode: undefined,
      exitSignal: 'SIGTERM',
      result: undefined,
      finalText: '5-hour limit reached ∙ resets 5am',
    }),
    kind: 'timeout',
  },
  {
    name: 'negative: ordinary prose about a rate limiter returning 429',
    evidence: run({
      result: {
        isError: false,
        subtype: 'success',
        apiErrorStatus: undefined,
        resultText:
          'Implemented the rate limiter: it returns 429 Too Many Requests once the limit is reached. <promise>STORY_COMPLETE</promise>',
      },
    }),
    kind: 'none',
  },
  {
    name: 'negative: max turns with prose about 529 and overload in the final text',
    evidence: run({
      exitCode: 1,
      result: {
        isError: true,
        subtype: 'error_max_turns',
        apiErrorStatus: undefined,
        resultText: undefined,
      },
      finalText: 'The retry loop now handles 529 overloaded responses and usage limit reached|123.',
    }),
    kind: 'none',
  },
  {
    name: 'negative: a limit message buried in a long first line',
    evidence: failed(`You've hit your limit ${'and more words '.repeat(30)}`),
    kind: 'none',
  },
  // Fatal.
  {
    name: 'fatal: not logged in',
    evidence: failed('not logged in or OAuth token expired'),
    kind: 'fatal',
  },
  {
    name: 'fatal: invalid API key (401)',
    evidence: failed('Invalid API key · Fix external API key', 401),
    kind: 'fatal',
  },
  {
    name: 'fatal: admin disabled the allocation (even with a rejected event)',
    evidence: failed('Your usage allocation has been disabled by your admin', undefined, {
      rateLimits: [rejected(Date.parse('2026-11-22T17:00:00Z'))],
    }),
    kind: 'fatal',
  },
  {
    name: "fatal: the organisation's monthly spend limit",
    evidence: failed("API Error: 400 You have reached your organization's monthly spend limit."),
    kind: 'fatal',
  },
  {
    name: 'fatal: credit balance too low',
    evidence: failed('Credit balance is too low'),
    kind: 'fatal',
  },
  {
    name: 'fatal: the agent CLI is missing',
    evidence: run({
      spawnError: 'ENOENT',
      exitCode: undefined,
      result: undefined,
      finalText: undefined,
      lineCount: 0,
    }),
    kind: 'fatal',
  },
  {
    name: 'fatal: nested session refusal on stderr',
    evidence: run({
      exitCode: 1,
      result: undefined,
      finalText: undefined,
      lineCount: 0,
      stderrTail: 'Error: Claude Code cannot be launched inside another Claude Code session.\n',
    }),
    kind: 'fatal',
  },
  {
    name: 'fatal: --dangerously-skip-permissions as root',
    evidence: run({
      exitCode: 1,
      result: undefined,
      finalText: undefined,
      lineCount: 1,
      stderrTail:
        '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons',
    }),
    kind: 'fatal',
  },
  // Transient.
  {
    name: 'transient: 529 overloaded',
    evidence: failed(
      'API Error: 529 Overloaded. This is a server-side issue, usually temporary.',
      529,
    ),
    kind: 'transient',
  },
  {
    name: 'transient: 500 internal server error',
    evidence: failed('API Error: 500 Internal server error.', 500),
    kind: 'transient',
  },
  {
    name: "transient: 429 from the API's per-minute rate limit (not a usage limit)",
    evidence: failed(
      "API Error: Request rejected (429) · This request would exceed your organization's rate limit of 50 requests per minute.",
      429,
    ),
    kind: 'transient',
  },
  {
    name: 'transient: connection reset',
    evidence: failed('API Error: Connection error (ECONNRESET)'),
    kind: 'transient',
  },
  {
    name: 'transient: request timed out',
    evidence: failed('Request timed out'),
    kind: 'transient',
  },
  {
    name: 'transient: MCP server connection closed',
    evidence: run({
      exitCode: 1,
      result: undefined,
      finalText: undefined,
      stderrTail: 'MCP server "playwright": connection closed unexpectedly',
    }),
    kind: 'transient',
  },
  {
    name: 'transient: a crash before any output',
    evidence: run({ exitCode: 139, result: undefined, finalText: undefined, lineCount: 0 }),
    kind: 'transient',
  },
  // Ordinary endings.
  { name: 'none: a normal run', evidence: run(), kind: 'none' },
  {
    name: 'none: prompt too long (400) is an ordinary failure',
    evidence: failed('Prompt is too long · the request is ~250000 tokens (limit 200000)', 400),
    kind: 'none',
  },
  {
    name: 'none: stopped by the user',
    evidence: run({ canceled: true, exitCode: undefined, exitSignal: 'SIGTERM' }),
    kind: 'none',
  },
  {
    name: 'none: killed after a good result line',
    evidence: run({ killedAfterResult: true, exitCode: undefined, exitSignal: 'SIGTERM' }),
    kind: 'none',
  },
  {
    name: 'timeout: no output for the idle limit',
    evidence: run({
      timedOut: true,
      idleTimedOut: true,
      exitCode: undefined,
      exitSignal: 'SIGTERM',
      result: undefined,
    }),
    kind: 'timeout',
  },
];

describe('classifyRun', () => {
  it('has at least 30 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(CASES)('$name', (testCase) => {
    const verdict = classifyRun(testCase.evidence, {
      now: testCase.now ?? NOW,
      timeZone: testCase.timeZone ?? 'UTC',
    });
    expect(verdict.kind, verdict.why).toBe(testCase.kind);
    if (verdict.kind === 'usage_limit') {
      if (testCase.resetAt !== undefined) {
        expect(verdict.limit.resetAt?.toISOString() ?? null).toBe(testCase.resetAt);
      }
      if (testCase.source !== undefined) expect(verdict.limit.source).toBe(testCase.source);
    }
  });

  it('gives fatal errors a hint that says what to do', () => {
    const verdict = classifyRun(failed('not logged in'), { now: NOW, timeZone: 'UTC' });
    expect(verdict.kind).toBe('fatal');
    if (verdict.kind === 'fatal') {
      expect(verdict.advice).toBe('login');
      expect(verdict.hint).toContain('/login');
    }
  });

  it('says why, naming the evidence', () => {
    const verdict = classifyRun(
      run({ result: undefined, rateLimits: [rejected(Date.parse('2026-11-22T17:00:00Z'))] }),
      { now: NOW, timeZone: 'UTC' },
    );
    expect(verdict.why).toBe(
      'usage limit (a rejected rate_limit_event; resets 2026-11-22T17:00:00.000Z): rate_limit_event rejected (five_hour)',
    );
  });
});
