import type { ParsedRequest } from './conversation.js';

/** One content block the fake will send; ids for tool_use are filled in from the conversation. */
export type ReplyBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** A normal assistant message. */
export interface MessageReply {
  content: ReplyBlock[];
  usage?: Partial<Usage>;
  /** Defaults to `tool_use` when a tool_use block is present, else `end_turn`. */
  stopReason?: StopReason;
  /** Defaults to the model the request asked for. */
  model?: string;
  /** Wait before answering, e.g. to let a test observe a running iteration. */
  delayMs?: number;
  /**
   * Extra response headers, e.g. the `anthropic-ratelimit-unified-*` set from which Claude Code
   * builds its rate_limit_event (see usageHeaders in script.ts).
   */
  headers?: Record<string, string>;
}

/** An HTTP error in the Messages API's shape: `{type:"error", error:{type, message}}`. */
export interface ErrorReply {
  status: number;
  type: string;
  message: string;
  /** e.g. `retry-after: 1` or `x-should-retry: false` (facts §6: those two shorten retries). */
  headers?: Record<string, string>;
}

/** Never answer; the socket stays open until the CLI gives up (API_TIMEOUT_MS) or close(). */
export interface HangReply {
  hang: true;
}

/** A raw body, e.g. the 200 text `Claude AI usage limit reached|1767225600` (facts §6). */
export interface RawReply {
  raw: string;
  status?: number;
  contentType?: string;
}

export type Reply = MessageReply | ErrorReply | HangReply | RawReply;

/** A string is shorthand for one text block ending the turn. */
export type ScriptResult = Reply | string;

/**
 * Chooses the reply from the request's conversation. It should be a function of the request,
 * not of how many requests came before: the CLI retries and falls back from streaming to
 * non-streaming with the same conversation, and must get the same answer (facts §3).
 */
export type Script = (request: ParsedRequest) => ScriptResult | Promise<ScriptResult>;
