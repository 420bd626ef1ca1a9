import type { ParsedRequest } from './conversation.js';
import type { ErrorReply, MessageReply, ReplyBlock, Script, ScriptResult } from './types.js';

export const text = (value: string): ReplyBlock => ({ type: 'text', text: value });

export const toolUse = (name: string, input: Record<string, unknown>): ReplyBlock => ({
  type: 'tool_use',
  name,
  input,
});

/** Write needs an absolute `file_path` (facts §3). */
export const write = (filePath: string, content: string): ReplyBlock =>
  toolUse('Write', { file_path: filePath, content });

export const bash = (command: string, description = `Run ${command}`): ReplyBlock =>
  toolUse('Bash', { command, description });

/** One assistant message; spread it to add usage: `{ ...reply('hi'), usage: {output_tokens: 5} }`. */
export const reply = (...blocks: (ReplyBlock | string)[]): MessageReply => ({
  content: blocks.map((b) => (typeof b === 'string' ? text(b) : b)),
});

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

/**
 * An API error. `retry: false` sends `x-should-retry: false`, which makes the CLI give up at
 * once; `retryAfter` sends `retry-after` in seconds (0 counts as absent, facts §6).
 */
export function apiError(
  status: number,
  options: { message?: string; retry?: boolean; retryAfter?: number; type?: string } = {},
): ErrorReply {
  const headers: Record<string, string> = {};
  if (options.retry !== undefined) headers['x-should-retry'] = String(options.retry);
  if (options.retryAfter !== undefined) headers['retry-after'] = String(options.retryAfter);
  return {
    status,
    type: options.type ?? ERROR_TYPES[status] ?? 'api_error',
    message: options.message ?? `fake ${status}`,
    headers,
  };
}

export type Step = ScriptResult | ((request: ParsedRequest) => ScriptResult);

/**
 * Step k answers the request that already holds k assistant turns. Retries and the
 * stream→non-stream fallback repeat the same conversation, so they get the same step.
 * Past the last step the script throws, which the fake turns into a fast, visible 400.
 */
export function scriptedSteps(steps: readonly Step[]): Script {
  return (request) => {
    const turn = request.assistantTurns().length;
    const step = steps[turn];
    if (step === undefined) {
      throw new Error(`script has ${steps.length} steps, but the request holds ${turn} turns`);
    }
    return typeof step === 'function' ? step(request) : step;
  };
}

/**
 * One script per claude process. The first request of each new session id calls
 * `factory(request, index)` (index counts sessions from 0 in order of arrival), and later
 * requests of that session go to the script it returned. Use the request to tell which story
 * or iteration this process is on: `request.firstUserText()` holds the prompt.
 */
export function perSession(factory: (first: ParsedRequest, index: number) => Script): Script {
  const scripts = new Map<string, Script>();
  return (request) => {
    const key = request.sessionId ?? 'no-session';
    let script = scripts.get(key);
    if (script === undefined) {
      script = factory(request, scripts.size);
      scripts.set(key, script);
    }
    return script(request);
  };
}

/** The k-th claude process (session) gets `scripts[k]`; one more process is a script error. */
export function sessionSequence(scripts: readonly Script[]): Script {
  return perSession((_first, index) => {
    const script = scripts[index];
    if (script === undefined) {
      return () => {
        throw new Error(`session ${index + 1} started, but only ${scripts.length} were scripted`);
      };
    }
    return script;
  });
}

/**
 * Fails the first `times` attempts at each turn of each session with `error`, then defers to
 * `script`; e.g. a 429 that succeeds on the CLI's retry. Attempts are counted per
 * (session, turn), so the count cannot drift across turns or processes.
 */
export function failFirst(times: number, error: ErrorReply, script: Script): Script {
  const attempts = new Map<string, number>();
  return (request) => {
    const key = `${request.sessionId ?? ''}#${request.assistantTurns().length}`;
    const seen = attempts.get(key) ?? 0;
    attempts.set(key, seen + 1);
    return seen < times ? error : script(request);
  };
}

/**
 * The response headers from which Claude Code 2.1.330 builds its `rate_limit_event` (names from
 * the CLI: `anthropic-ratelimit-unified-{status,reset,representative-claim}` and, per window,
 * `-5h-`/`-7d-` `utilization`, `reset`, `status`). Reset times in epoch seconds. The CLI reads
 * them only for a subscription or a gateway login (see gatewayToken in ../real-claude/env.ts),
 * not for an API key.
 */
export function usageHeaders(windows: {
  fiveHour: { utilization: number; resetsAt: number; status?: string };
  sevenDay: { utilization: number; resetsAt: number; status?: string };
}): Record<string, string> {
  const { fiveHour, sevenDay } = windows;
  return {
    'anthropic-ratelimit-unified-status': fiveHour.status ?? 'allowed',
    'anthropic-ratelimit-unified-reset': String(fiveHour.resetsAt),
    'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    'anthropic-ratelimit-unified-5h-utilization': String(fiveHour.utilization),
    'anthropic-ratelimit-unified-5h-reset': String(fiveHour.resetsAt),
    'anthropic-ratelimit-unified-5h-status': fiveHour.status ?? 'allowed',
    'anthropic-ratelimit-unified-7d-utilization': String(sevenDay.utilization),
    'anthropic-ratelimit-unified-7d-reset': String(sevenDay.resetsAt),
    'anthropic-ratelimit-unified-7d-status': sevenDay.status ?? 'allowed',
    'anthropic-ratelimit-unified-overage-status': 'rejected',
    'anthropic-ratelimit-unified-overage-disabled-reason': 'org_level_disabled',
  };
}
