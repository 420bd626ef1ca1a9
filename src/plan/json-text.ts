import { formatLocation, RalphError } from '../util/errors.js';
import type {
  JsonArrayNode,
  JsonMember,
  JsonNode,
  JsonObjectNode,
  JsonScalarNode,
} from './json-node.js';
import { detectTextStyle, positionAt, type TextStyle } from './json-position.js';

/**
 * A JSON parser that keeps the source offsets of every value. JSON.parse loses them, and the
 * round-trip writer needs them to replace one value in place (leaving every other byte alone)
 * and to point validation errors at a line and column.
 */

export interface ParsedJson {
  file: string;
  text: string;
  root: JsonNode;
  /** The same data as plain values (what JSON.parse would return). */
  value: unknown;
  style: TextStyle;
}

const BOM = '\uFEFF';
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SIMPLE_ESCAPES = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);
// Far deeper than any task list; keeps a hostile file from overflowing the stack.
const MAX_DEPTH = 256;

export function parseJsonText(text: string, file: string): ParsedJson {
  const scanner = new Scanner(text, file);
  const root = scanner.parseDocument();
  return { file, text, root, value: toPlainValue(root), style: detectTextStyle(text, root) };
}

export function toPlainValue(node: JsonNode): unknown {
  switch (node.kind) {
    case 'object':
      // fromEntries defines own properties, so a "__proto__" key stays data, not a prototype.
      return Object.fromEntries(node.members.map((m) => [m.key, toPlainValue(m.value)]));
    case 'array':
      return node.items.map(toPlainValue);
    default:
      return node.value;
  }
}

class Scanner {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {}

  parseDocument(): JsonNode {
    if (this.text.startsWith(BOM)) this.pos = 1;
    this.skipWhitespace();
    if (this.pos >= this.text.length) this.fail('the file is empty; expected a JSON value');
    const root = this.parseValue();
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail('unexpected text after the end of the JSON value');
    return root;
  }

  private parseValue(): JsonNode {
    const char = this.text[this.pos];
    switch (char) {
      case '{':
        return this.parseObject();
      case '[':
        return this.parseArray();
      case '"': {
        const start = this.pos;
        const value = this.parseString();
        return { kind: 'string', start, end: this.pos, value };
      }
      case 't':
        return this.parseLiteral('true', 'boolean', true);
      case 'f':
        return this.parseLiteral('false', 'boolean', false);
      case 'n':
        return this.parseLiteral('null', 'null', null);
      case undefined:
        return this.fail('unexpected end of file; expected a value');
      default:
        if (char === '-' || (char >= '0' && char <= '9')) return this.parseNumber();
        return this.fail(`unexpected ${describeChar(char)}; expected a value`);
    }
  }

  private parseObject(): JsonObjectNode {
    const start = this.pos;
    this.enter();
    this.pos++;
    const members: JsonMember[] = [];
    const seen = new Map<string, number>();
    this.skipWhitespace();
    if (this.text[this.pos] === '}') return this.closeObject(start, members);
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] === '}' && members.length > 0) this.failTrailingComma('}');
      if (this.text[this.pos] !== '"') {
        this.fail(`unexpected ${this.describeHere()}; expected a property name in double quotes`);
      }
      const keyStart = this.pos;
      const key = this.parseString();
      const keyEnd = this.pos;
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        const line = positionAt(this.text, earlier).line;
        this.fail(
          `duplicate key ${JSON.stringify(key)} (also on line ${line}); which one counts is ambiguous`,
          keyStart,
        );
      }
      seen.set(key, keyStart);
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') this.fail(`unexpected ${this.describeHere()}; expected ':'`);
      this.pos++;
      this.skipWhitespace();
      members.push({ key, keyStart, keyEnd, value: this.parseValue() });
      this.skipWhitespace();
      const next = this.text[this.pos];
      if (next === '}') return this.closeObject(start, members);
      if (next !== ',') this.fail(`unexpected ${this.describeHere()}; expected ',' or '}'`);
      this.pos++;
    }
  }

  private closeObject(start: number, members: JsonMember[]): JsonObjectNode {
    this.pos++;
    this.depth--;
    return { kind: 'object', start, end: this.pos, members };
  }

  private parseArray(): JsonArrayNode {
    const start = this.pos;
    this.enter();
    this.pos++;
    const items: JsonNode[] = [];
    this.skipWhitespace();
    if (this.text[this.pos] !== ']') {
      for (;;) {
        this.skipWhitespace();
        if (this.text[this.pos] === ']' && items.length > 0) this.failTrailingComma(']');
        items.push(this.parseValue());
        this.skipWhitespace();
        const next = this.text[this.pos];
        if (next === ']') break;
        if (next !== ',') this.fail(`unexpected ${this.describeHere()}; expected ',' or ']'`);
        this.pos++;
      }
    }
    this.pos++;
    this.depth--;
    return { kind: 'array', start, end: this.pos, items };
  }

  private parseString(): string {
    const open = this.pos;
    this.pos++;
    let value = '';
    let chunkStart = this.pos;
    for (;;) {
      const code = this.text.charCodeAt(this.pos);
      if (Number.isNaN(code)) this.fail('unterminated string (no closing quote)', open);
      if (code === 0x22) break;
      if (code < 0x20) {
        const what = code === 0x0a || code === 0x0d ? 'line break' : 'control character';
        this.fail(`${what} inside a string (a missing closing quote?); escape it, e.g. \\n`);
      }
      if (code !== 0x5c) {
        this.pos++;
        continue;
      }
      value += this.text.slice(chunkStart, this.pos);
      value += this.parseEscape();
      chunkStart = this.pos;
    }
    value += this.text.slice(chunkStart, this.pos);
    this.pos++;
    return value;
  }

  private parseEscape(): string {
    const escape = this.text[this.pos + 1] ?? '';
    const simple = SIMPLE_ESCAPES.get(escape);
    if (simple !== undefined) {
      this.pos += 2;
      return simple;
    }
    if (escape === 'u') {
      const hex = this.text.slice(this.pos + 2, this.pos + 6);
      if (!/^[0-9A-Fa-f]{4}$/.test(hex)) this.fail('invalid \\u escape; expected four hex digits');
      this.pos += 6;
      return String.fromCharCode(parseInt(hex, 16));
    }
    return this.fail(`invalid escape \\${escape} in a string`);
  }

  private parseNumber(): JsonScalarNode {
    const start = this.pos;
    NUMBER.lastIndex = start;
    const found = NUMBER.exec(this.text);
    if (found === null) this.fail('invalid number');
    this.pos = start + found[0].length;
    const after = this.text[this.pos];
    if (after !== undefined && /[\w.+-]/.test(after)) this.fail('invalid number', start);
    return { kind: 'number', start, end: this.pos, value: Number(found[0]) };
  }

  private parseLiteral(
    word: 'true' | 'false' | 'null',
    kind: 'boolean' | 'null',
    value: boolean | null,
  ): JsonScalarNode {
    const start = this.pos;
    if (!this.text.startsWith(word, start) || /\w/.test(this.text[start + word.length] ?? '')) {
      this.fail(`unexpected ${this.describeHere()}; expected a value (strings need double quotes)`);
    }
    this.pos += word.length;
    return { kind, start, end: this.pos, value };
  }

  private skipWhitespace(): void {
    for (;;) {
      const char = this.text[this.pos];
      if (char !== ' ' && char !== '\t' && char !== '\n' && char !== '\r') return;
      this.pos++;
    }
  }

  private enter(): void {
    this.depth++;
    if (this.depth > MAX_DEPTH) this.fail(`values nested deeper than ${MAX_DEPTH} levels`);
  }

  private describeHere(): string {
    const char = this.text[this.pos];
    return char === undefined ? 'end of file' : describeChar(char);
  }

  private failTrailingComma(closer: string): never {
    const comma = this.text.lastIndexOf(',', this.pos);
    return this.fail(`trailing comma before '${closer}'; JSON allows none`, comma);
  }

  private fail(message: string, at: number = this.pos): never {
    const { line, column } = positionAt(this.text, at);
    const location = { file: this.file, line, column };
    throw new RalphError('INVALID_JSON', `${formatLocation(location)}: invalid JSON: ${message}`, {
      location,
      hint: `fix the JSON syntax at line ${line} column ${column}; ralph did not change the file`,
    });
  }
}

function describeChar(char: string): string {
  if (/^[\x21-\x7e]$/.test(char)) return `character '${char}'`;
  const code = char.codePointAt(0) ?? 0;
  return `character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
