import { z } from 'zod';
import type {
  AgentEvent,
  AgentResultLine,
  RateLimitInfo,
  TokenUsage,
  UsageWindowReading,
} from '../types.js';
import { summarizeToolInput } from './tool-summary.js';

/**
 * Claude Code `--output-format stream-json --verbose`, one line at a time. Lines are read by field
 * name (key order differs between versions, fields come and go), every field is optional, and a
 * field of the wrong type reads as absent instead of failing the line (`api_error_status` is
 * often null). Nothing here throws: what is not understood is kept as `{type:'unknown', raw}`.
 */

/** One output line: its events, plus what the collector needs that events do not carry. */
export interface ParsedLine {
  events: AgentEvent[];
  sessionId: string | undefined;
  /** The model named on an init or assistant line (never Claude Code's `<synthetic>` errors). */
  model: string | undefined;
  /** Set on a sub-agent's (Task tool's) lines: their text is not the agent's final message. */
  parentToolUseId: string | undefined;
  /** The `error` of an assistant line: Claude Code's synthetic error message carries one. */
  assistantError?: string | undefined;
}

const str = z.string().optional().catch(undefined);
const num = z.number().optional().catch(undefined);
const bool = z.boolean().optional().catch(undefined);
/** A cost or a token count: what is negative, fractional where counted, or not finite is unknown. */
const amount = z.number().min(0).optional().catch(undefined);
const tokens = z.int().min(0).optional().catch(undefined);

const envelopeSchema = z.looseObject({
  type: str,
  subtype: str,
  session_id: str,
  parent_tool_use_id: str,
});

const blockSchema = z.looseObject({
  type: str,
  text: str,
  thinking: str,
  id: str,
  name: str,
  input: z.unknown().optional(),
  tool_use_id: str,
  content: z.unknown().optional(),
  is_error: bool,
});
const messageSchema = z.looseObject({
  message: z
    .looseObject({ model: str, content: z.array(z.unknown()).optional().catch(undefined) })
    .optional()
    .catch(undefined),
});

const initSchema = z.looseObject({ model: str, claude_code_version: str });
const retrySchema = z.looseObject({
  attempt: num,
  max_retries: num,
  retry_delay_ms: num,
  error_status: num,
  error: str,
});
const resetsAt = z.union([z.number(), z.string()]).optional().catch(undefined);
/** 0–1; anything else (a percentage, a string) is unknown. */
const fraction = z.number().min(0).max(1).optional().catch(undefined);
const windowSchema = z.looseObject({ utilization: fraction, resetsAt, status: str });
const rateLimitSchema = z.looseObject({
  rate_limit_info: z
    .looseObject({
      status: str,
      resetsAt,
      rateLimitType: str,
      utilization: fraction,
      overageStatus: str,
      overageDisabledReason: str,
      isUsingOverage: bool,
      unifiedWindows: z.record(z.string(), z.unknown()).optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
});
const assistantErrorSchema = z.looseObject({ error: str });
const resultSchema = z.looseObject({
  subtype: str,
  is_error: bool,
  api_error_status: num,
  result: str,
  session_id: str,
  total_cost_usd: amount,
  num_turns: num,
  duration_ms: num,
  usage: z
    .looseObject({
      input_tokens: tokens,
      output_tokens: tokens,
      cache_read_input_tokens: tokens,
      cache_creation_input_tokens: tokens,
    })
    .optional()
    .catch(undefined),
  permission_denials: z
    .array(z.looseObject({ tool_name: str, tool_use_id: str }))
    .optional()
    .catch(undefined),
});

const SYNTHETIC_MODEL = '<synthetic>';

export function parseStreamLine(raw: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return unknownLine(raw);
  }
  const envelope = envelopeSchema.safeParse(value);
  if (!envelope.success) return unknownLine(raw); // arrays, numbers, null: JSON but not an event
  const { type, subtype, session_id: sessionId, parent_tool_use_id } = envelope.data;
  const line: ParsedLine = {
    events: [],
    sessionId,
    model: undefined,
    parentToolUseId: parent_tool_use_id,
  };
  if (type === 'system' && subtype === 'init') {
    const init = initSchema.parse(value);
    line.model = init.model;
    line.events.push({
      type: 'init',
      sessionId,
      model: init.model,
      version: init.claude_code_version,
    });
  } else if (type === 'system' && subtype === 'api_retry') {
    const retry = retrySchema.parse(value);
    line.events.push({
      type: 'api_retry',
      attempt: retry.attempt,
      maxRetries: retry.max_retries,
      delayMs: retry.retry_delay_ms,
      errorStatus: retry.error_status,
      error: retry.error,
    });
  } else if (type === 'rate_limit_event') {
    const info = rateLimitSchema.parse(value).rate_limit_info;
    if (info !== undefined) line.events.push({ type: 'rate_limit', info: rateLimitInfo(info) });
  } else if (type === 'result') {
    line.events.push({ type: 'result', summary: resultLine(resultSchema.parse(value)) });
  } else if (type === 'assistant' || type === 'user') {
    const message = messageSchema.parse(value).message;
    if (type === 'assistant' && message?.model !== SYNTHETIC_MODEL) line.model = message?.model;
    if (type === 'assistant') line.assistantError = assistantErrorSchema.parse(value).error;
    for (const block of message?.content ?? []) {
      const event = blockEvent(type, block);
      if (event !== undefined) line.events.push(event);
    }
  }
  // A known line type with nothing usable in it (a user text, an empty message) is still kept.
  if (line.events.length === 0) line.events.push({ type: 'unknown', raw });
  return line;
}

function unknownLine(raw: string): ParsedLine {
  return {
    events: [{ type: 'unknown', raw }],
    sessionId: undefined,
    model: undefined,
    parentToolUseId: undefined,
  };
}

function blockEvent(role: 'assistant' | 'user', value: unknown): AgentEvent | undefined {
  const parsed = blockSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const block = parsed.data;
  if (role === 'assistant' && block.type === 'text' && block.text !== undefined) {
    return { type: 'text', text: block.text };
  }
  if (role === 'assistant' && (block.type === 'thinking' || block.type === 'redacted_thinking')) {
    return { type: 'thinking', text: block.thinking ?? '' };
  }
  if (role === 'assistant' && block.type === 'tool_use') {
    const name = block.name ?? 'unknown';
    return {
      type: 'tool_use',
      call: { id: block.id, name, summary: summarizeToolInput(name, block.input) },
    };
  }
  if (role === 'user' && block.type === 'tool_result') {
    return {
      type: 'tool_result',
      toolUseId: block.tool_use_id,
      isError: block.is_error === true,
      text: toolResultText(block.content),
    };
  }
  return undefined;
}

/** tool_result content is a string, or a list of blocks of which the text ones matter. */
function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const item of content as unknown[]) {
    const block = blockSchema.safeParse(item);
    if (block.success && block.data.type === 'text' && block.data.text !== undefined) {
      texts.push(block.data.text);
    }
  }
  return texts.join('\n');
}

type RateLimitLine = NonNullable<z.infer<typeof rateLimitSchema>['rate_limit_info']>;

function rateLimitInfo(info: RateLimitLine): RateLimitInfo {
  const windows: Record<string, UsageWindowReading> = {};
  for (const [name, raw] of Object.entries(info.unifiedWindows ?? {})) {
    const reading = windowSchema.safeParse(raw);
    if (!reading.success) continue;
    windows[name] = {
      utilization: reading.data.utilization,
      resetsAt: epochMs(reading.data.resetsAt),
      status: reading.data.status,
    };
  }
  return {
    status: info.status ?? 'unknown',
    resetsAt: epochMs(info.resetsAt),
    rateLimitType: info.rateLimitType,
    ...(info.utilization === undefined ? {} : { utilization: info.utilization }),
    ...(info.overageStatus === undefined ? {} : { overageStatus: info.overageStatus }),
    ...(info.overageDisabledReason === undefined
      ? {}
      : { overageDisabledReason: info.overageDisabledReason }),
    ...(info.isUsingOverage === undefined ? {} : { isUsingOverage: info.isUsingOverage }),
    ...(Object.keys(windows).length === 0 ? {} : { windows }),
  };
}

/**
 * Claude Code writes `resetsAt` in epoch seconds; milliseconds and ISO dates are accepted too.
 * Below 1e11 a number can only be seconds (1e11 ms is 1973, 1e11 s is the year 5138).
 */
export function epochMs(value: number | string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = typeof value === 'number' ? value : Number(value);
  if (Number.isFinite(number)) return number < 1e11 ? Math.round(number * 1000) : number;
  const parsed = Date.parse(String(value));
  return Number.isNaN(parsed) ? undefined : parsed;
}

function resultLine(result: z.infer<typeof resultSchema>): AgentResultLine {
  return {
    subtype: result.subtype,
    isError: result.is_error === true,
    apiErrorStatus: result.api_error_status,
    resultText: result.result,
    sessionId: result.session_id,
    costUsd: result.total_cost_usd,
    numTurns: result.num_turns,
    usage: tokenUsage(result.usage),
    permissionDenials: (result.permission_denials ?? []).map((denial) => ({
      toolName: denial.tool_name ?? 'unknown',
      toolUseId: denial.tool_use_id,
    })),
    durationMs: result.duration_ms,
  };
}

function tokenUsage(usage: z.infer<typeof resultSchema>['usage']): TokenUsage | undefined {
  if (usage === undefined) return undefined;
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
    cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
  };
}
