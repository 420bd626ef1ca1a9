import type { ParsedRequest } from './conversation.js';
import type { MessageReply, StopReason, Usage } from './types.js';

/** 100 in / 20 out per reply: three turns on sonnet cost exactly $0.0018 (facts §4). */
export const DEFAULT_USAGE: Usage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

export type OutBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The Messages API's non-streaming response body. */
export interface ApiMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutBlock[];
  stop_reason: StopReason;
  stop_sequence: null;
  usage: Usage;
}

/**
 * Ids are derived from the conversation, never from a counter, so a retried request gets the
 * same ids: `msg_fake_<turn>`, `toolu_fake_<n>` with n counting every tool_use so far.
 */
export function buildMessage(
  reply: MessageReply,
  request: ParsedRequest,
  defaultUsage: Usage,
): ApiMessage {
  let toolIndex = request.toolUses().length;
  const content = reply.content.map((block): OutBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    toolIndex += 1;
    const id = block.id ?? `toolu_fake_${toolIndex}`;
    return { type: 'tool_use', id, name: block.name, input: block.input };
  });
  const hasTool = content.some((b) => b.type === 'tool_use');
  return {
    id: `msg_fake_${request.assistantTurns().length + 1}`,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? (request.model || 'claude-sonnet-5-5'),
    content,
    stop_reason: reply.stopReason ?? (hasTool ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: { ...defaultUsage, ...reply.usage },
  };
}

const event = (name: string, data: unknown): string =>
  `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** Splits a string in a few pieces so the CLI's delta accumulation is really exercised. */
function chunks(text: string, parts = 3): string[] {
  if (text.length < parts * 2) return [text];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The standard SSE event sequence for one message (facts §3). */
export function sseEvents(message: ApiMessage): string[] {
  const { content, usage, stop_reason, ...head } = message;
  const events = [
    event('message_start', {
      type: 'message_start',
      // Real servers report input tokens up front and output tokens at the end.
      message: { ...head, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    event('ping', { type: 'ping' }),
  ];
  content.forEach((block, index) => {
    const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
    events.push(
      event('content_block_start', { type: 'content_block_start', index, content_block: start }),
    );
    const deltas =
      block.type === 'text'
        ? chunks(block.text).map((text) => ({ type: 'text_delta', text }))
        : chunks(JSON.stringify(block.input)).map((partial_json) => ({
            type: 'input_json_delta',
            partial_json,
          }));
    for (const delta of deltas) {
      events.push(event('content_block_delta', { type: 'content_block_delta', index, delta }));
    }
    events.push(event('content_block_stop', { type: 'content_block_stop', index }));
  });
  events.push(
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    event('message_stop', { type: 'message_stop' }),
  );
  return events;
}
