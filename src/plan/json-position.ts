import type { JsonNode } from './json-node.js';

/** How a file is laid out, so that text ralph adds looks like the text around it. */
export interface TextStyle {
  /** One level of indentation: two spaces, four spaces, a tab, … */
  indent: string;
  newline: '\n' | '\r\n';
  finalNewline: boolean;
  bom: boolean;
}

const DEFAULT_INDENT = '  ';

/** 1-based line and column; columns count code points, as editors do, and skip a BOM. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  if (line === 1 && text.startsWith('\uFEFF')) lineStart = Math.min(1, end);
  const column = Array.from(text.slice(lineStart, end)).length + 1;
  return { line, column };
}

function lineStartAt(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The spaces and tabs that begin the line holding `offset`. */
export function lineIndentAt(text: string, offset: number): string {
  const start = lineStartAt(text, offset);
  const match = /^[ \t]*/.exec(text.slice(start, offset));
  return match?.[0] ?? '';
}

export function isOnOneLine(text: string, start: number, end: number): boolean {
  const newline = text.indexOf('\n', start);
  return newline === -1 || newline >= end;
}

export function detectTextStyle(text: string, root: JsonNode): TextStyle {
  const firstNewline = text.indexOf('\n');
  return {
    indent: detectIndent(text, root) ?? DEFAULT_INDENT,
    newline: firstNewline > 0 && text[firstNewline - 1] === '\r' ? '\r\n' : '\n',
    finalNewline: text.endsWith('\n'),
    bom: text.startsWith('\uFEFF'),
  };
}

/**
 * The unit is the step from a container's line to its first child's line, taken from the first
 * container laid out over several lines; files that are all on one line have none.
 */
function detectIndent(text: string, node: JsonNode): string | undefined {
  if (node.kind !== 'object' && node.kind !== 'array') return undefined;
  const children = node.kind === 'object' ? node.members.map((m) => m.value) : node.items;
  const first = node.kind === 'object' ? node.members[0]?.keyStart : node.items[0]?.start;
  if (first !== undefined && !isOnOneLine(text, node.start, first)) {
    const outer = lineIndentAt(text, node.start);
    const inner = lineIndentAt(text, first);
    if (inner.length > outer.length && inner.startsWith(outer)) return inner.slice(outer.length);
  }
  for (const child of children) {
    const found = detectIndent(text, child);
    if (found !== undefined) return found;
  }
  return undefined;
}
