import type { IncomingHttpHeaders } from 'node:http';

/** A content block as the CLI sends it, normalised; unknown block types are kept as they are. */
export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error: boolean }
  | { type: 'other'; raw: unknown };

/** `role` is `user`, `assistant` or, on 2.1.330, `system` (the mid-conversation-system beta). */
export interface Message {
  role: string;
  content: Block[];
}

export type ToolResult = Extract<Block, { type: 'tool_result' }>;
export type ToolUse = Extract<Block, { type: 'tool_use' }>;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Tool results carry a string or an array of text/image blocks; tests want the text. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isObject(part) && part.type === 'text' ? str(part.text) : ''))
    .join('');
}

function parseBlock(raw: unknown): Block {
  if (!isObject(raw)) return { type: 'other', raw };
  switch (raw.type) {
    case 'text':
      return { type: 'text', text: str(raw.text) };
    case 'tool_use':
      return { type: 'tool_use', id: str(raw.id), name: str(raw.name), input: raw.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: str(raw.tool_use_id),
        content: textOf(raw.content),
        is_error: raw.is_error === true,
      };
    default:
      return { type: 'other', raw };
  }
}

function parseMessage(raw: unknown): Message {
  if (!isObject(raw)) return { role: 'unknown', content: [] };
  const content =
    typeof raw.content === 'string' ? [{ type: 'text', text: raw.content }] : raw.content;
  return {
    role: str(raw.role),
    content: Array.isArray(content) ? content.map(parseBlock) : [],
  };
}

const blockText = (blocks: readonly Block[]): string =>
  blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');

/** `metadata.user_id` is a JSON string `{device_id, session_id, …}` (facts §3). */
function sessionIdOf(body: Json, headers: IncomingHttpHeaders): string | undefined {
  const header = headers['x-claude-code-session-id'];
  if (typeof header === 'string' && header !== '') return header;
  const userId = isObject(body.metadata) ? body.metadata.user_id : undefined;
  if (typeof userId !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(userId);
    return isObject(parsed) && typeof parsed.session_id === 'string'
      ? parsed.session_id
      : undefined;
  } catch {
    return undefined;
  }
}

/** A `POST /v1/messages` request, with the questions a script asks of it. */
export class ParsedRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly sessionId: string | undefined;
  /** The system prompt's text blocks joined (the first is the billing header). */
  readonly system: string;
  /** Tool names offered; every main-loop request in `-p` mode carries them. */
  readonly tools: readonly string[];
  readonly messages: readonly Message[];

  constructor(
    readonly body: Json,
    readonly headers: IncomingHttpHeaders,
  ) {
    this.model = str(body.model);
    this.stream = body.stream === true;
    this.sessionId = sessionIdOf(body, headers);
    this.system = Array.isArray(body.system)
      ? blockText(body.system.map(parseBlock))
      : str(body.system);
    this.tools = Array.isArray(body.tools)
      ? body.tools.map((t) => (isObject(t) ? str(t.name) : ''))
      : [];
    this.messages = Array.isArray(body.messages) ? body.messages.map(parseMessage) : [];
  }

  /**
   * Assistant turns so far. Consecutive assistant messages count as one turn, so the count
   * does not depend on whether the CLI splits one API reply into several messages.
   */
  assistantTurns(): Message[][] {
    const turns: Message[][] = [];
    let previous: string | undefined;
    for (const message of this.messages) {
      if (message.role === 'assistant') {
        if (previous === 'assistant') turns.at(-1)?.push(message);
        else turns.push([message]);
      }
      previous = message.role;
    }
    return turns;
  }

  toolUses(): ToolUse[] {
    return this.blocks('assistant').filter((b): b is ToolUse => b.type === 'tool_use');
  }

  toolResults(): ToolResult[] {
    return this.blocks('user').filter((b): b is ToolResult => b.type === 'tool_result');
  }

  /** The text of the first user message: the `-p` prompt plus any context the CLI prepends. */
  firstUserText(): string {
    const first = this.messages.find((m) => m.role === 'user');
    return first ? blockText(first.content) : '';
  }

  /**
   * The `-p` prompt: the first user message's text blocks without the `<system-reminder>`
   * context the CLI puts in front of it (git status, attribution, CLAUDE.md).
   */
  prompt(): string {
    const first = this.messages.find((m) => m.role === 'user');
    return (first?.content ?? [])
      .flatMap((b) =>
        b.type === 'text' && !b.text.startsWith('<system-reminder>') ? [b.text] : [],
      )
      .join('\n');
  }

  /** The text of the last user message ('' when it holds only tool results). */
  lastUserText(): string {
    const last = this.messages.findLast((m) => m.role === 'user');
    return last ? blockText(last.content) : '';
  }

  /** Texts of `role:"system"` items, e.g. Stop-hook feedback on 2.1.330. */
  systemMessages(): string[] {
    return this.messages.filter((m) => m.role === 'system').map((m) => blockText(m.content));
  }

  /** Whether `needle` occurs in any message text or tool result (not the system prompt). */
  containsText(needle: string): boolean {
    return this.messages.some((m) =>
      m.content.some(
        (b) =>
          (b.type === 'text' && b.text.includes(needle)) ||
          (b.type === 'tool_result' && b.content.includes(needle)),
      ),
    );
  }

  private blocks(role: string): Block[] {
    return this.messages.filter((m) => m.role === role).flatMap((m) => m.content);
  }
}
