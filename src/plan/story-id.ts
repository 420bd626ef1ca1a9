/**
 * Story ids such as STORY-002.1, US-001, F12 or OPS-V4-001: a prefix, a number, and optional
 * decimal parts that tools use to insert a story between two others without renumbering.
 * STORY-002.10 comes after STORY-002.9, which a string sort gets wrong.
 */

export interface ParsedStoryId {
  prefix: string;
  numbers: number[];
}

const STORY_ID = /^([A-Za-z][A-Za-z0-9_-]*?)?(\d+)((?:\.\d+)*)$/;

/** The prefix and numeric parts, or undefined for ids of another shape (slugs like "docs"). */
export function parseStoryId(id: string): ParsedStoryId | undefined {
  const match = STORY_ID.exec(id);
  if (match === null) return undefined;
  const [, prefix = '', main = '', decimals = ''] = match;
  const rest = decimals === '' ? [] : decimals.slice(1).split('.');
  return { prefix: prefix.toUpperCase(), numbers: [main, ...rest].map(Number) };
}

/**
 * Orders ids by prefix, then numerically part by part (STORY-002 < STORY-002.1 < STORY-003).
 * Returns 0 when either id is not of that shape: such ids carry no order of their own.
 */
export function compareStoryIds(a: string, b: string): number {
  const left = parseStoryId(a);
  const right = parseStoryId(b);
  if (left === undefined || right === undefined) return 0;
  return compareParsedIds(left, right);
}

export function compareParsedIds(left: ParsedStoryId, right: ParsedStoryId): number {
  if (left.prefix !== right.prefix) return left.prefix < right.prefix ? -1 : 1;
  const length = Math.max(left.numbers.length, right.numbers.length);
  for (let i = 0; i < length; i++) {
    // A missing part sorts first, so STORY-002 comes before STORY-002.1.
    const difference = (left.numbers[i] ?? -1) - (right.numbers[i] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}
