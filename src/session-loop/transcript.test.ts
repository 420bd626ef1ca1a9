import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastAssistantText, readLastAssistantText } from './transcript.js';

const line = (value: unknown) => JSON.stringify(value);
const assistant = (id: string, ...blocks: unknown[]) =>
  line({ type: 'assistant', message: { id, role: 'assistant', content: blocks } });
const text = (value: string) => ({ type: 'text', text: value });

describe('lastAssistantText', () => {
  it('joins the text blocks of the last assistant message', () => {
    const jsonl = [
      assistant('m1', text('old')),
      line({ type: 'user', message: { role: 'user', content: 'hi' } }),
      assistant('m2', text('first part')),
      assistant('m2', { type: 'tool_use', id: 't', name: 'Bash', input: {} }),
      assistant('m2', text('second part')),
      line({ type: 'system', subtype: 'notification' }),
      '',
    ].join('\n');
    expect(lastAssistantText(jsonl)).toBe('first part\nsecond part');
  });

  it('skips junk lines and unknown shapes, and accepts string content', () => {
    const jsonl = [
      '{"type":"assistant","message":{"content":"plain"}}',
      'not json',
      '{"x":1}',
    ].join('\n');
    expect(lastAssistantText(jsonl)).toBe('plain');
  });

  it('is undefined without assistant text', () => {
    expect(lastAssistantText(line({ type: 'user', message: { content: 'x' } }))).toBeUndefined();
    expect(lastAssistantText('')).toBeUndefined();
  });

  it('reads only the tail of a long file, and nothing from a missing one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-transcript-'));
    const path = join(dir, 't.jsonl');
    const filler = assistant('m0', text('x'.repeat(1000)));
    await writeFile(
      path,
      `${Array(2000).fill(filler).join('\n')}\n${assistant('m9', text('<promise>DONE</promise>'))}\n`,
    );
    expect(await readLastAssistantText(path)).toBe('<promise>DONE</promise>');
    expect(await readLastAssistantText(join(dir, 'missing.jsonl'))).toBeUndefined();
  });
});
