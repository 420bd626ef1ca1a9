/**
 * Story ids such as STORY-002.1, US-001, F12 or OPS-V4-001: a prefix, a number, and optional
 * decimal parts that tools use to insert a story between two others without renumbering.
 * STORY-002.10 comes after STORY-002.9, which a string sort gets wrong.
 */

/**
 * Why `id` cannot be a story id, or undefined when it can. Ids reach file names (per-story
 * state, logs), git messages and line-based files (progress.txt), and an agent can write the
 * task list: a newline in an id would start a line of its choosing in whatever file ralph appends
 * the id to, and a path separator or `..` would point a file name elsewhere.
 */
export function storyIdProblem(id: string): string | undefined {
  const control = CONTROL.exec(id)?.[0];
  if (control !== undefined) return `contains a control character (${describeControl(control)})`;
  if (id.includes('/') || id.includes('\\')) return 'contains a path separator (/ or \\)';
  if (id.includes('..')) return 'contains ".."';
  if (id.trim() === '') return 'is blank';
  return undefined;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const CONTROL_NAMES = new Map([
  ['\n', 'a newline'],
  ['\r', 'a carriage return'],
  ['\t', 'a tab'],
  ['\u001b', 'ESC'],
  ['\u0000', 'NUL'],
]);

function describeControl(char: string): string {
  const code = `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  const name = CONTROL_NAMES.get(char);
  return name === undefined ? code : `${name}, ${code}`;
}

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
