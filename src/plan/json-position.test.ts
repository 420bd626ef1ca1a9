import { describe, expect, it } from 'vitest';
import { isOnOneLine, lineIndentAt, positionAt } from './json-position.js';

describe('positionAt', () => {
  it('gives 1-based lines and columns', () => {
    const text = 'ab\ncd\r\nef';
    expect(positionAt(text, 0)).toEqual({ line: 1, column: 1 });
    expect(positionAt(text, 4)).toEqual({ line: 2, column: 2 });
    expect(positionAt(text, 7)).toEqual({ line: 3, column: 1 });
    expect(positionAt(text, 99)).toEqual({ line: 3, column: 3 });
  });

  it('counts a character outside the BMP once and does not count a BOM', () => {
    expect(positionAt('"😀x"', 3)).toEqual({ line: 1, column: 3 });
    expect(positionAt('\uFEFF{}', 1)).toEqual({ line: 1, column: 1 });
    expect(positionAt('\uFEFF{\n}', 3)).toEqual({ line: 2, column: 1 });
  });
});

describe('line helpers', () => {
  it('find the indentation of a line and whether a span crosses lines', () => {
    const text = '{\n\t  "a": 1\n}';
    expect(lineIndentAt(text, text.indexOf('"a"'))).toBe('\t  ');
    expect(lineIndentAt(text, 0)).toBe('');
    expect(isOnOneLine(text, 2, 10)).toBe(true);
    expect(isOnOneLine(text, 0, text.length)).toBe(false);
  });
});
