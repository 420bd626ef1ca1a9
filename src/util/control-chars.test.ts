import { describe, expect, it } from 'vitest';
import {
  escapeControlCharacters,
  hasControlCharacter,
  safeForTerminal,
  terminalText,
} from './control-chars.js';

describe('control characters', () => {
  it.each([
    ['a newline', 'US-1\necho pwned'],
    ['a carriage return', 'US-1\r'],
    ['ESC', 'US-\u001b[2J1'],
    ['NUL', 'US-\u00001'],
    ['DEL', 'US-\u007f'],
    ['a C1 control', 'US-\u009b1'],
    ['a line separator', 'US-\u20281'],
  ])('finds %s', (_what, text) => {
    expect(hasControlCharacter(text)).toBe(true);
    expect(hasControlCharacter(text)).toBe(true); // the global regex keeps no state between calls
  });

  it('leaves ordinary text, tabs and non-ASCII letters alone', () => {
    for (const text of ['STORY-002.1', 'Ünïcödé title', 'a\tb', '']) {
      expect(hasControlCharacter(text)).toBe(false);
      expect(escapeControlCharacters(text)).toBe(text);
    }
  });

  it('escapes every control character so the text stays on one line', () => {
    expect(escapeControlCharacters('a\nb\rc\u001bd\u0000e\u2028')).toBe(
      'a\\nb\\rc\\u001bd\\u0000e\\u2028',
    );
  });
});

describe('terminalText', () => {
  it('shows escape and control sequences as escapes, keeping newlines and tabs', () => {
    expect(terminalText('\u001b]52;c;aGk=\u0007 \u001b[2J\u001b]0;t\u0007')).toBe(
      '\\u001b]52;c;aGk=\\u0007 \\u001b[2J\\u001b]0;t\\u0007',
    );
    expect(terminalText('a\r\bb\u009b31m\u009d')).toBe('a\\r\\u0008b\\u009b31m\\u009d');
    expect(terminalText('\u202egnp.exe \u2066x\u2069')).toBe('\\u202egnp.exe \\u2066x\\u2069');
    expect(terminalText('two\nlines\tand a tab, ünïcödé ✓')).toBe(
      'two\nlines\tand a tab, ünïcödé ✓',
    );
  });

  it('reaches every string of a view model', () => {
    const view = { title: '\u001b[2J', rows: [{ text: 'ok' }, { text: '\u009b' }], count: 3 };
    expect(safeForTerminal(view)).toEqual({
      title: '\\u001b[2J',
      rows: [{ text: 'ok' }, { text: '\\u009b' }],
      count: 3,
    });
  });
});
