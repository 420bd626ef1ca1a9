import { lineIndentAt, isOnOneLine } from './json-position.js';
import type { JsonArrayNode } from './json-node.js';
import type { ParsedJson } from './json-text.js';

/**
 * Inserting and deleting items of a JSON array in the original text (write.ts only sets fields):
 * `ralph amend` and `ralph sync` add and remove whole stories, and a diff of prd.json must show
 * only those stories, with every other byte (unknown fields, spacing, key order) as it was.
 */

export type PlainJson =
  string | number | boolean | null | PlainJson[] | { [key: string]: PlainJson };

export interface TextSplice {
  start: number;
  end: number;
  text: string;
}

/** JSON for `value` laid out like the file: over several lines that continue at `indent`. */
export function serialiseLike(json: ParsedJson, value: PlainJson, indent: string): string {
  const { indent: unit, newline } = json.style;
  return JSON.stringify(value, null, unit)
    .split('\n')
    .join(newline + indent);
}

/** A splice that puts `value` at position `index` (0 … items.length) of `array`. */
export function insertItem(
  json: ParsedJson,
  array: JsonArrayNode,
  index: number,
  value: PlainJson,
): TextSplice {
  const { text } = json;
  const { newline, indent: unit } = json.style;
  const items = array.items;
  if (items.length === 0) {
    const outer = lineIndentAt(text, array.start);
    const inner = outer + unit;
    const body = serialiseLike(json, value, inner);
    return {
      start: array.start + 1,
      end: array.end - 1,
      text: `${newline}${inner}${body}${newline}${outer}`,
    };
  }
  const oneLine = isOnOneLine(text, array.start, array.end);
  const first = items[0];
  const itemIndent = first === undefined || oneLine ? '' : lineIndentAt(text, first.start);
  const gap = oneLine ? ' ' : newline + itemIndent;
  const body = oneLine ? JSON.stringify(value) : serialiseLike(json, value, itemIndent);
  if (index <= 0 && first !== undefined) {
    return { start: first.start, end: first.start, text: `${body},${gap}` };
  }
  const before = items[Math.min(index, items.length) - 1];
  const at = before?.end ?? array.start + 1;
  return { start: at, end: at, text: `,${gap}${body}` };
}

/**
 * Splices that delete the items at `indices`, each run of neighbours as one piece with the
 * comma and spacing that belong to it, so that the splices never overlap.
 */
export function removeItems(array: JsonArrayNode, indices: Iterable<number>): TextSplice[] {
  const items = array.items;
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const splices: TextSplice[] = [];
  for (let i = 0; i < sorted.length;) {
    const first = sorted[i] ?? 0;
    let last = first;
    while (sorted[i + 1] === last + 1) {
      i++;
      last++;
    }
    i++;
    const from = items[first];
    const to = items[last];
    if (from === undefined || to === undefined) throw new Error(`internal: no array item ${first}`);
    const previous = items[first - 1];
    const next = items[last + 1];
    if (previous !== undefined) splices.push({ start: previous.end, end: to.end, text: '' });
    else if (next !== undefined) splices.push({ start: from.start, end: next.start, text: '' });
    // Every item goes: `[ … ]` becomes `[]`.
    else splices.push({ start: array.start + 1, end: array.end - 1, text: '' });
  }
  return splices;
}

/** Applies non-overlapping splices (any order) to `text`. */
export function applyTextSplices(text: string, splices: readonly TextSplice[]): string {
  const ordered = [...splices].sort((a, b) => a.start - b.start || a.end - b.end);
  let result = '';
  let cursor = 0;
  for (const splice of ordered) {
    if (splice.start < cursor) throw new Error('internal: overlapping edits of a JSON file');
    result += text.slice(cursor, splice.start) + splice.text;
    cursor = splice.end;
  }
  return result + text.slice(cursor);
}
