import { open } from 'node:fs/promises';
import * as z from 'zod';

/**
 * The last assistant text of a Claude Code transcript (JSONL, one line per content block; blocks
 * of one API message share `message.id`). Used only when the hook input has no
 * last_assistant_message. Only the tail is read: a long session's transcript runs to megabytes.
 */

const TAIL_BYTES = 1024 * 1024;

const contentBlock = z.looseObject({ type: z.string(), text: z.string().optional() });
const transcriptLine = z.looseObject({
  type: z.string(),
  message: z
    .looseObject({
      id: z.string().optional(),
      role: z.string().optional(),
      content: z.union([z.string(), z.array(contentBlock)]).optional(),
    })
    .optional(),
});

export async function readLastAssistantText(path: string): Promise<string | undefined> {
  let text: string;
  try {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      const start = Math.max(0, size - TAIL_BYTES);
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      text = buffer.toString('utf8');
      // The first line of a tail is probably cut in half.
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      await handle.close();
    }
  } catch {
    // Not flushed yet, or gone: no promise can be seen, so the loop goes on.
    return undefined;
  }
  return lastAssistantText(text);
}

/** Pure: the text blocks of the last assistant message in JSONL text. */
export function lastAssistantText(jsonl: string): string | undefined {
  const lines = jsonl.split('\n');
  let messageId: string | undefined;
  const texts: string[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = parseLine(lines[i] ?? '');
    if (line === undefined) continue;
    if (line.type !== 'assistant') {
      if (texts.length > 0) break;
      continue;
    }
    const id = line.message?.id;
    if (texts.length > 0 && id !== messageId) break;
    const blockTexts = textsOf(line.message?.content);
    if (blockTexts.length === 0 && texts.length === 0) continue;
    messageId = id;
    texts.unshift(...blockTexts);
    if (id === undefined) break;
  }
  return texts.length === 0 ? undefined : texts.join('\n');
}

function parseLine(line: string): z.output<typeof transcriptLine> | undefined {
  if (line.trim() === '') return undefined;
  try {
    const parsed = transcriptLine.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function textsOf(content: string | z.output<typeof contentBlock>[] | undefined): string[] {
  if (content === undefined) return [];
  if (typeof content === 'string') return [content];
  return content.flatMap((block) =>
    block.type === 'text' && block.text !== undefined ? [block.text] : [],
  );
}
