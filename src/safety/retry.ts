import { runFailed, type RunEvidence } from './evidence.js';

/**
 * Failures worth retrying and failures not worth anything (issue 4, item 5).
 *  - transient: the API overloaded or erroring (5xx, 529), its per-minute rate limit (429 that is
 *    not a usage limit), a request timeout, a dropped connection, an MCP server connection that
 *    closed or timed out, or an agent that crashed before printing a single line. The same
 *    iteration runs again after an exponential backoff with jitter.
 *  - fatal: nothing ralph can wait out — not logged in, invalid API key, the admin disabled the
 *    allocation, the org's monthly or spend limit, the agent CLI missing, a nested session, root
 *    with --dangerously-skip-permissions. The run stops at once with what to do.
 * Everything else (max turns, "prompt is too long", a 400) is an ordinary failed iteration that
 * the circuit breaker counts. Only failed runs are classified, and only from the agent's own
 * result / final text and stderr, so an agent's prose about a "rate limiter returning 429" on a
 * run that ended normally is never mistaken for either.
 */

export type FailureClass =
  { kind: 'transient'; why: string } | { kind: 'fatal'; why: string; hint: string };

interface Rule {
  pattern: RegExp;
  why: string;
  hint: string;
}

const LOGIN = 'Run `claude login` (or set a valid ANTHROPIC_API_KEY), then `ralph run` again.';

const FATAL_RULES: readonly Rule[] = [
  {
    pattern:
      /invalid api key|invalid x-api-key|authentication[_ ](?:failed|error)|not logged in|please (?:run )?\/login|oauth token (?:has )?(?:expired|been revoked)|login required/i,
    why: 'the agent is not logged in or its API key is invalid',
    hint: LOGIN,
  },
  {
    pattern:
      /allocation has been disabled|disabled by your admin|admin(?:istrator)? (?:has )?disabled/i,
    why: "the organisation's admin disabled this account's usage allocation",
    hint: 'Ask your organisation admin to re-enable your Claude Code allocation; waiting will not help.',
  },
  {
    pattern:
      /monthly (?:usage |spend(?:ing)? )?limit|spend(?:ing)? limit|credit balance is too low|specified api usage limits|out of credits/i,
    why: "the organisation's monthly or spend limit is reached",
    hint: 'Raise the spend limit or add credits (Anthropic Console, or ask your admin); ralph does not wait for a monthly reset.',
  },
  {
    pattern:
      /cannot be launched inside another claude code session|nested (?:claude code )?session/i,
    why: 'Claude Code refused to start inside another Claude Code session',
    hint: 'Unset CLAUDECODE and CLAUDE_CODE_ENTRYPOINT in the environment ralph runs in (ralph removes them from the agent, so a wrapper re-added them), or start ralph from a plain terminal.',
  },
  {
    pattern: /cannot be used with root\/sudo privileges/i,
    why: 'Claude Code refuses --dangerously-skip-permissions as root',
    hint: 'Inside a sandbox set IS_SANDBOX=1; otherwise run as a normal user or drop --dangerously-skip-permissions.',
  },
];

const TRANSIENT_RULES: readonly { pattern: RegExp; why: string }[] = [
  { pattern: /\b529\b|overloaded/i, why: 'the API is overloaded' },
  {
    pattern:
      /API Error:?\s*5\d\d\b|internal server error|bad gateway|service unavailable|gateway timeout/i,
    why: 'the API returned a server error',
  },
  { pattern: /request timed out|api_timeout/i, why: 'the API request timed out' },
  {
    pattern:
      /\b(?:ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b|socket hang up|connection (?:reset|refused|error|closed|dropped|lost)|network error|fetch failed|unable to connect/i,
    why: 'the connection to the API failed',
  },
  {
    pattern:
      /\bMCP\b[^\n]*(?:connection|server|transport)[^\n]*(?:closed|dropped|lost|timed? ?out|failed|disconnected)|MCP error -32001|MCP error -32000/i,
    why: 'an MCP server connection dropped or timed out',
  },
];

/** Why a failed run failed, when it is transient or fatal; undefined for ordinary failures. */
export function classifyFailure(evidence: RunEvidence): FailureClass | undefined {
  if (evidence.spawnError !== undefined) {
    return {
      kind: 'fatal',
      why: `the agent CLI could not be started (${evidence.spawnError})`,
      hint: 'Install Claude Code (npm install -g @anthropic-ai/claude-code) or point RALPH_CLAUDE_BIN / agents.claude.command at it.',
    };
  }
  if (evidence.canceled || evidence.timedOut || !runFailed(evidence)) return undefined;
  const texts = failureTexts(evidence);
  const status = evidence.result?.apiErrorStatus;

  const said = (pattern: RegExp) => texts.find((text) => pattern.test(text));
  for (const rule of FATAL_RULES) {
    const text = said(rule.pattern);
    if (text !== undefined)
      return { kind: 'fatal', why: `${rule.why}: ${quote(text)}`, hint: rule.hint };
  }
  if (status === 401) {
    return { kind: 'fatal', why: 'the API answered 401 (authentication)', hint: LOGIN };
  }
  if (status === 403) {
    return {
      kind: 'fatal',
      why: 'the API answered 403 (permission denied)',
      hint: "Check that the account or API key may use this model and Claude Code; ask your admin if it is an organisation's key.",
    };
  }
  if (status !== undefined && (status >= 500 || status === 429 || status === 408)) {
    const what =
      status === 429 ? 'rate limited' : status === 408 ? 'request timeout' : 'server error';
    return { kind: 'transient', why: `the API answered ${status} (${what})` };
  }
  for (const rule of TRANSIENT_RULES) {
    const text = said(rule.pattern);
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

/**
 * Where a failed run says why: the result text of an error result, the last assistant text of a
 * run cut before its result line (Claude Code's synthetic error message), and stderr. The final
 * text of a run that has a result is the agent's prose, which may discuss anything.
 */
function failureTexts(evidence: RunEvidence): string[] {
  const { result } = evidence;
  const texts = [
    result?.isError === true ? result.resultText : undefined,
    result === undefined ? evidence.finalText : undefined,
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

export interface RetryConfig {
  /** Retries after the first attempt (3: attempts 2, 3 and 4). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** ± this fraction of the delay, from the injected random source. */
  jitter: number;
}

export type RetryDecision =
  { retry: true; retryNumber: number; delayMs: number } | { retry: false; why: string };

/**
 * Whether a transient failure after `retriesSoFar` retries gets another, and after how long:
 * base × 2^(n-1), capped, ± jitter (2 s, 4 s, 8 s by default). `random` returns [0, 1).
 */
export function nextRetry(
  retriesSoFar: number,
  config: RetryConfig,
  random: () => number,
): RetryDecision {
  if (retriesSoFar >= config.maxRetries) {
    return {
      retry: false,
      why: `gave up after ${retriesSoFar} ${retriesSoFar === 1 ? 'retry' : 'retries'}`,
    };
  }
  const retryNumber = retriesSoFar + 1;
  const nominal = Math.min(config.maxDelayMs, config.baseDelayMs * 2 ** (retryNumber - 1));
  const factor = 1 - config.jitter + 2 * config.jitter * Math.min(Math.max(random(), 0), 1);
  return { retry: true, retryNumber, delayMs: Math.max(0, Math.round(nominal * factor)) };
}
