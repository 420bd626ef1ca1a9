import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusFiles, corpusPath, describeCorpus } from '../../test/corpus.js';
import { RalphError } from '../util/errors.js';
import { parseJsonText } from './json-text.js';

function syntaxError(text: string): RalphError {
  try {
    parseJsonText(text, 'prd.json');
  } catch (error) {
    if (error instanceof RalphError) return error;
    throw error;
  }
  throw new Error('expected a syntax error');
}

describeCorpus('parseJsonText on the corpus', () => {
  it.each(corpusFiles('plans', '.json'))('reads %s exactly as JSON.parse does', (name) => {
    const text = readFileSync(corpusPath('plans', name), 'utf8');
    expect(parseJsonText(text, name).value).toEqual(JSON.parse(text));
  });
});

describe('parseJsonText', () => {
  it('reads nested values, numbers, literals and Unicode exactly as JSON.parse does', () => {
    const text =
      '{\n  "a": [1, -2.5e3, 0.125, true, false, null, {}],\n  "b": {"c": "中文 ✓", "d": []},\n  "": ""\n}\n';
    expect(parseJsonText(text, 'f.json').value).toEqual(JSON.parse(text));
  });

  it('decodes escapes, including surrogate pairs, as JSON.parse does', () => {
    const text = String.raw`["\u00e9\ud83d\ude00", "\/\b\f\n\r\t\\"]`;
    expect(parseJsonText(text, 'f.json').value).toEqual(JSON.parse(text));
  });

  it('keeps a "__proto__" key as data', () => {
    const value = parseJsonText('{"__proto__": {"x": 1}}', 'f.json').value;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value as object)).toEqual(['__proto__']);
  });

  it('skips a UTF-8 BOM and reports it in the style', () => {
    const parsed = parseJsonText('\uFEFF{"a": 1}', 'f.json');
    expect(parsed.value).toEqual({ a: 1 });
    expect(parsed.style.bom).toBe(true);
    expect(syntaxError('\uFEFF{"a": 1,}').location).toMatchObject({ line: 1, column: 8 });
  });
});

describe('syntax errors', () => {
  it.each([
    ['a missing comma', '{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected ',' or '}'"],
    ['a trailing comma in an object', '{\n  "a": 1,\n}', 2, 9, 'trailing comma'],
    ['a trailing comma in an array', '[1, 2, ]', 1, 6, 'trailing comma'],
    ['a single-quoted string', "{'a': 1}", 1, 2, 'property name in double quotes'],
    ['an unquoted word', '{"a": yes}', 1, 7, 'expected a value'],
    ['an unterminated string', '{"a": "abc\n}', 1, 11, 'line break inside a string'],
    ['a raw tab in a string', '["a\tb"]', 1, 4, 'control character inside a string'],
    ['an unterminated string at the end', '["abc', 1, 2, 'unterminated string'],
    ['a bad number', '[01]', 1, 2, 'invalid number'],
    ['a bad escape', '["\\x"]', 1, 3, 'invalid escape'],
    ['text after the value', '{}\n}', 2, 1, 'after the end'],
    ['an empty file', '  \n', 2, 1, 'empty'],
    ['an early end', '{"a": [1,', 1, 10, 'end of file'],
  ])('reports %s with its line and column', (_what, text, line, column, message) => {
    const error = syntaxError(text);
    expect(error.code).toBe('INVALID_JSON');
    expect(error.message).toContain(message);
    expect(error.location).toEqual({ file: 'prd.json', line, column });
    expect(error.message).toMatch(new RegExp(`^prd\\.json:${line}:${column}: invalid JSON: `));
    expect(error.hint).toBe(
      `fix the JSON syntax at line ${line} column ${column}; ralph did not change the file`,
    );
  });

  it('counts columns in characters, not UTF-16 units, after multibyte text', () => {
    expect(syntaxError('{"标题😀": x}').location).toMatchObject({ line: 1, column: 9 });
  });

  it('refuses duplicate keys, naming the key and both lines', () => {
    const error = syntaxError('{\n  "passes": false,\n  "id": "A",\n  "passes": true\n}');
    expect(error.code).toBe('INVALID_JSON');
    expect(error.message).toContain('duplicate key "passes" (also on line 2)');
    expect(error.location).toMatchObject({ line: 4, column: 3 });
  });

  it('refuses absurd nesting instead of overflowing the stack', () => {
    expect(syntaxError('['.repeat(10_000)).message).toContain('nested deeper');
  });
});

describe('text style', () => {
  it.each([
    ['two spaces', '{\n  "a": [\n    1\n  ]\n}\n', '  ', '\n', true],
    ['four spaces', '{\n    "a": 1\n}', '    ', '\n', false],
    ['tabs', '{\n\t"a": {\n\t\t"b": 1\n\t}\n}\n', '\t', '\n', true],
    ['CRLF', '{\r\n  "a": 1\r\n}\r\n', '  ', '\r\n', true],
    ['one line', '{"a": [1, 2]}', '  ', '\n', false],
    ['inline root, indented items', '[{"a": 1},\n   {"a": 2}]', '  ', '\n', false],
    ['inline items under an indented root', '[\n    {"a": 1}\n]\n', '    ', '\n', true],
  ])('detects %s', (_what, text, indent, newline, finalNewline) => {
    expect(parseJsonText(text, 'f.json').style).toEqual({
      indent,
      newline,
      finalNewline,
      bom: false,
    });
  });
});
