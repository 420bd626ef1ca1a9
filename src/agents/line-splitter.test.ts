import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLineCapper, createLineSplitter, pumpLines } from './line-splitter.js';

describe('createLineSplitter', () => {
  it('splits on \\n and \\r\\n and joins lines spread over chunks', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('a\r\nb')).toEqual(['a']);
    expect(splitter.push('c')).toEqual([]);
    expect(splitter.push('d\n\ne\r')).toEqual(['bcd', '']);
    expect(splitter.push('\nf')).toEqual(['e']);
    expect(splitter.end()).toBe('f');
    expect(splitter.end()).toBeUndefined();
  });

  it('returns nothing at the end when the stream ended with a newline', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('x\n')).toEqual(['x']);
    expect(splitter.end()).toBeUndefined();
  });

  it('strips a \\r that arrives in the chunk before its \\n', () => {
    const splitter = createLineSplitter();
    expect(splitter.push('line\r')).toEqual([]);
    expect(splitter.push('\n')).toEqual(['line']);
  });
});

describe('createLineCapper', () => {
  const capped = (max: number, chunks: string[]): string => {
    const capper = createLineCapper(max);
    const out = chunks.map((chunk) => capper.push(Buffer.from(chunk)).toString('utf8'));
    return out.join('') + (capper.end()?.toString('utf8') ?? '');
  };
  const mark = (max: number, dropped: number) =>
    ` …[ralph: line cut at ${max} bytes (maxLineBytes); ${dropped} more bytes dropped]`;

  it('passes lines up to the cap through untouched, the same buffer', () => {
    const capper = createLineCapper(8);
    const chunk = Buffer.from('12345678\nabc');
    expect(capper.push(chunk)).toBe(chunk);
    expect(capper.push(Buffer.from('defgh\n')).toString()).toBe('defgh\n');
    expect(capper.end()).toBeUndefined();
  });

  it('cuts a longer line, across chunks, and says how much it dropped', () => {
    expect(capped(8, ['0123456789ab\nok\n'])).toBe(`01234567${mark(8, 4)}\nok\n`);
    expect(capped(8, ['0123', '4567', '89', 'abc\nnext', '\n'])).toBe(
      `01234567${mark(8, 5)}\nnext\n`,
    );
    expect(capped(4, ['abcdefgh'])).toBe(`abcd${mark(4, 4)}`);
  });

  it('cuts on a character boundary', () => {
    // "é" is two bytes: a cut after 5 bytes would split the third one.
    expect(capped(5, ['ééé\n'])).toBe(`éé${mark(5, 2)}\n`);
  });

  it('keeps memory flat with a line far longer than the cap', async () => {
    const block = 'x'.repeat(1 << 16);
    const lines: string[] = [];
    const stream = Readable.from(
      (function* () {
        for (let index = 0; index < 512; index++) yield Buffer.from(block);
        yield Buffer.from('\n{"ok":true}\n');
      })(),
    );
    await pumpLines(stream, { maxLineBytes: 1024, onLine: (line) => void lines.push(line) });
    expect(lines).toEqual([`${'x'.repeat(1024)}${mark(1024, 512 * 65536 - 1024)}`, '{"ok":true}']);
  });
});
