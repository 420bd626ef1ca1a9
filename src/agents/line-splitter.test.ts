import { describe, expect, it } from 'vitest';
import { createLineSplitter } from './line-splitter.js';

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
