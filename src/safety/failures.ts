import { runFailed, type RunEvidence } from './evidence.js';

/**
 * Failures worth retrying and failures not worth anything (issue 4, item 5; issue 15, item 1).
 *  - transient: the API overloaded or erroring (5xx, 529), its per-minute rate limit (a 429 that
 *    is not a usage limit), a request timeout, a dropped connection, an MCP server connection
 *    that closed or timed out, or an agent that crashed before printing a single line. The same
 *    iteration runs again after an exponential backoff with jitter.
 *  - fatal: nothing ralph can wait out. Each carries `advice`, the kind of fix, and a hint that
 *    says it: log in again, fix the API key, add credits, raise a spend limit, ask the admin, …
 * Structured fields come first (the `error` of Claude Code's synthetic error message, then
 * `api_error_status`); the wording of the result, the synthetic message and stderr is the
 * fallback, read only for failed runs, so an agent's prose about a "rate limiter returning 429"
 * on a run that ended normally is never mistaken for either. Fatal failures are split in two:
 * `hardFatal` (login, key, admin, account, environment) beats a usage limit; `softFatal`
 * (credits, spend limits) only counts when no usage limit with a reset was seen.
 */

export type FatalAdvice =
  | 'install'
  | 'login'
  | 'api_key'
  | 'credits'
  | 'spend'
  | 'admin'
  | 'account'
  | 'permission'
  | 'nested'
  | 'root';

export type FailureClass =
  | { kind: 'transient'; why: string }
  | { kind: 'fatal'; why: string; hint: string; advice: FatalAdvice };

export type FatalFailure = Extract<FailureClass, { kind: 'fatal' }>;

export const FATAL_HINTS: Readonly<Record<FatalAdvice, string>> = {
  install:
    'Install Claude Code (npm install -g @anthropic-ai/claude-code) or point RALPH_CLAUDE_BIN / agents.claude.command at it.',
  login:
    'Log Claude Code in again: run `claude` and type /login (or `claude auth login`), or set ANTHROPIC_API_KEY to use an API key; then `ralph run` again.',
  api_key:
    'Set ANTHROPIC_API_KEY (or apiKeyHelper) to a valid key from the Anthropic Console, or unset it and log in with `claude` → /login; then `ralph run` again.',
  credits:
    'Add credits (Anthropic Console → Plans & Billing, or /usage-credits in Claude Code), then `ralph run` again; waiting will not help.',
  spend:
    'Raise the spend limit (Anthropic Console → Limits, or ask your admin); ralph does not wait for a monthly reset.',
  admin:
    'Ask your organisation admin to re-enable Claude Code for your account (or use an Anthropic API key); waiting will not help.',
  account:
    'The account or organisation is disabled or on hold: contact Anthropic support or your admin; waiting will not help.',
  permission:
    "Check that the account or API key may use this model and Claude Code; ask your admin if it is an organisation's key.",
  nested:
    'Unset CLAUDECODE and CLAUDE_CODE_ENTRYPOINT in the environment ralph runs in (ralph removes them from the agent, so a wrapper re-added them), or start ralph from a plain terminal.',
  root: 'Inside a sandbox set IS_SANDBOX=1; otherwise run as a normal user or drop --dangerously-skip-permissions.',
};

interface Rule {
  pattern: RegExp;
  why: string;
  advice: FatalAdvice;
}

/** Checked in order: a key problem says "/login" too, so it comes before the login rule. */
const HARD_RULES: readonly Rule[] = [
  {
    pattern:
      /invalid (?:x-)?api[ -]key|x-api-key header is required|missing api key|api key (?:is )?(?:missing|required|not set)|could not resolve authentication method/i,
    why: 'the API key is missing or invalid',
    advice: 'api_key',
  },
  {
    pattern:
      /not logged in|please (?:run )?\/login|run \/login|login expired|re-?login required|login required|oauth token (?:has )?(?:expired|been revoked|revoked)|oauth token expired|oauth authentication is currently not|authentication with a claude\.ai account|failed to authenticate/i,
    why: 'Claude Code is not logged in (or its login expired)',
    advice: 'login',
  },
  {
    pattern:
      /allocation has been disabled|disabled by (?:your |the )?(?:org(?:ani[sz]ation)? )?admin|admin(?:istrator)? (?:has )?disabled|organi[sz]ation has disabled/i,
    why: "the organisation's admin disabled Claude Code for this account",
    advice: 'admin',
  },
  {
    pattern:
      /organi[sz]ation has been disabled|account (?:has been |is )?(?:disabled|suspended|on hold)/i,
    why: 'the account or organisation is disabled',
    advice: 'account',
  },
  {
    pattern:
      /cannot be launched inside another claude code session|nested (?:claude code )?session/i,
    why: 'Claude Code refused to start inside another Claude Code session',
    advice: 'nested',
  },
  {
    pattern: /cannot be used with root\/sudo privileges/i,
    why: 'Claude Code refuses --dangerously-skip-permissions as root',
    advice: 'root',
  },
];

const SOFT_RULES: readonly Rule[] = [
  {
    pattern: /credit balance (?:is )?too low|out of (?:usage )?credits|purchase credits|add funds/i,
    why: 'the credit balance is too low',
    advice: 'credits',
  },
  {
    pattern:
      /monthly (?:usage |spend(?:ing)? )?limit|spend(?:ing)? limit|specified api usage limits/i,
    why: 'a monthly or spend limit is reached',
    advice: 'spend',
  },
];

/** Claude Code's synthetic error message `error` values that settle the class by themselves. */
const STRUCTURED_FATAL: Readonly<Record<string, { advice: FatalAdvice; why: string }>> = {
  oauth_org_not_allowed: { advice: 'admin', why: 'the organisation does not allow this login' },
  account_on_hold: { advice: 'account', why: 'the account is on hold' },
  verification_required: { advice: 'account', why: 'the account needs verification' },
};
const STRUCTURED_TRANSIENT: Readonly<Record<string, string>> = {
  overloaded: 'the API is overloaded',
  server_error: 'the API returned a server error',
};

const TRANSIENT_RULES: readonly { pattern: RegExp; why: string }[] = [
  { pattern: /\b529\b|overloaded/i, why: 'the API is overloaded' },
  {
    pattern:
      /(?:API\s+)?Error:?\s*\(?5\d\d\b|\b5\d\d\s*\{"type":"error"|internal server error|bad gateway|service unavailable|gateway timeout|broken pipe/i,
    why: 'the API returned a server error',
  },
  { pattern: /request timed out|api_timeout/i, why: 'the API request timed out' },
  {
    pattern:
      /\b(?:ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b|ConnectionRefused|socket hang up|connection (?:reset|refused|error|closed|dropped|lost)|network error|fetch failed|unable to connect/i,
    why: 'the connection to the API failed',
  },
  {
    pattern:
      /\bMCP\b[^\n]*(?:connection|server|transport)[^\n]*(?:closed|dropped|lost|timed? ?out|failed|disconnected)|MCP error -32001|MCP error -32000/i,
    why: 'an MCP server connection dropped or timed out',
  },
  {
    pattern:
      /rate_limit_error|per-minute rate limit|rate limit of [\d,]+ [^\n]*per minute|\b429\b/i,
    why: "the API's per-minute rate limit",
  },
];

function fatal(advice: FatalAdvice, why: string): FatalFailure {
  return { kind: 'fatal', why, hint: FATAL_HINTS[advice], advice };
}

/** Failures that beat a usage limit: the agent cannot run at all until a person acts. */
export function hardFatal(evidence: RunEvidence): FatalFailure | undefined {
  if (evidence.spawnError !== undefined) {
    return fatal('install', `the agent CLI could not be started (${evidence.spawnError})`);
  }
  if (!considered(evidence)) return undefined;
  const structured = STRUCTURED_FATAL[evidence.assistantError ?? ''];
  if (structured !== undefined) return fatal(structured.advice, structured.why);
  const texts = failureTexts(evidence);
  const rule = firstRule(HARD_RULES, texts);
  if (rule !== undefined) return rule;
  const status = evidence.result?.apiErrorStatus;
  if (status === 401 || evidence.assistantError === 'authentication_failed') {
    // A 401 with nothing more specific: an OAuth login says so, anything else is the key.
    const oauth = texts.some((text) => /oauth|claude\.ai/i.test(text));
    return fatal(oauth ? 'login' : 'api_key', 'the API answered 401 (authentication)');
  }
  if (status === 403) return fatal('permission', 'the API answered 403 (permission denied)');
  return undefined;
}

/** Failures that only count when no usage limit (with its reset) explains the run. */
export function softFatal(evidence: RunEvidence): FatalFailure | undefined {
  if (!considered(evidence)) return undefined;
  const rule = firstRule(SOFT_RULES, failureTexts(evidence));
  if (rule !== undefined) return rule;
  if (evidence.assistantError === 'billing_error') {
    return fatal('credits', 'Claude Code reported a billing error');
  }
  return undefined;
}

/** A failure the same iteration may get past after a short backoff. */
export function transientFailure(evidence: RunEvidence): FailureClass | undefined {
  if (!considered(evidence)) return undefined;
  const status = evidence.result?.apiErrorStatus;
  const structured = STRUCTURED_TRANSIENT[evidence.assistantError ?? ''];
  if (structured !== undefined) {
    // The class is settled; the status and the message still say which error it was.
    const said = failureTexts(evidence)[0];
    const detail =
      said === undefined ? (status === undefined ? '' : ` (${status})`) : `: ${quote(said)}`;
    return { kind: 'transient', why: `${structured}${detail}` };
  }
  if (status !== undefined && (status >= 500 || status === 429 || status === 408)) {
    const what =
      status === 429 ? 'rate limited' : status === 408 ? 'request timeout' : 'server error';
    return { kind: 'transient', why: `the API answered ${status} (${what})` };
  }
  if (evidence.assistantError === 'rate_limit') {
    return { kind: 'transient', why: 'Claude Code reported a rate limit' };
  }
  const texts = failureTexts(evidence);
  for (const rule of TRANSIENT_RULES) {
    const text = texts.find((each) => rule.pattern.test(each));
    if (text !== undefined) return { kind: 'transient', why: `${rule.why}: ${quote(text)}` };
  }
  if (evidence.lineCount === 0) {
    const how =
      evidence.exitSignal !== undefined
        ? `killed by ${evidence.exitSignal}`
        : `exit code ${String(evidence.exitCode)}`;
    return { kind: 'transient', why: `the agent crashed before printing anything (${how})` };
  }
  return undefined;
}

/** Why a failed run failed, when it is transient or fatal; undefined for ordinary failures. */
export function classifyFailure(evidence: RunEvidence): FailureClass | undefined {
  return hardFatal(evidence) ?? softFatal(evidence) ?? transientFailure(evidence);
}

function considered(evidence: RunEvidence): boolean {
  return !evidence.canceled && !evidence.timedOut && runFailed(evidence);
}

function firstRule(rules: readonly Rule[], texts: readonly string[]): FatalFailure | undefined {
  for (const rule of rules) {
    const text = texts.find((each) => rule.pattern.test(each));
    if (text !== undefined) return fatal(rule.advice, `${rule.why}: ${quote(text)}`);
  }
  return undefined;
}

/**
 * Where a failed run says why: the result text of an error result, the last assistant text of a
 * run cut before its result line or of a synthetic error message, and stderr. The final text of
 * a run that ended with a normal message is the agent's prose, which may discuss anything.
 */
export function failureTexts(evidence: RunEvidence): string[] {
  const { result } = evidence;
  const texts = [
    result?.isError === true ? result.resultText : undefined,
    result === undefined || evidence.assistantError !== undefined ? evidence.finalText : undefined,
    evidence.stderrTail,
  ];
  return texts.filter((text): text is string => text !== undefined && text.trim() !== '');
}

function quote(text: string): string {
  const line =
    text
      .trim()
      .split('\n')
      .find((each) => each.trim() !== '') ?? '';
  return line.length > 200 ? `${line.slice(0, 197)}…` : line;
}
