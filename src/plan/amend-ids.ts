/**
 * The ids `ralph amend` hands out. AMD-NNN numbers are never reused, even when the amendment or
 * its story is gone later: the next number is one past the highest mentioned anywhere in spec.md,
 * prd.json or progress.txt, so an id quoted in a commit message or a log always means one thing.
 * Story ids are never reused either: descoped stories keep theirs.
 */

const AMD = /\bAMD-(\d+)\b/g;
const PLAIN_ID = /^([A-Za-z][A-Za-z0-9_]*-)(\d+)((?:\.\d+)*)$/;

export function nextAmendmentId(texts: readonly string[]): string {
  let highest = 0;
  for (const text of texts) {
    for (const match of text.matchAll(AMD)) highest = Math.max(highest, Number(match[1]));
  }
  return `AMD-${String(highest + 1).padStart(3, '0')}`;
}

/** One past the highest main number in use, with the prefix and width of that id. */
export function nextStoryId(ids: Iterable<string>): string {
  let best: { prefix: string; number: number; width: number } | undefined;
  for (const id of ids) {
    const match = PLAIN_ID.exec(id);
    if (match?.[1] === undefined || match[2] === undefined) continue;
    const number = Number(match[2]);
    if (best === undefined || number > best.number) {
      best = { prefix: match[1], number, width: match[2].length };
    }
  }
  if (best === undefined) return 'STORY-001';
  return `${best.prefix}${String(best.number + 1).padStart(best.width, '0')}`;
}

/**
 * The decimal id for a story inserted after `target` (STORY-002 → STORY-002.1, then .2, …):
 * one past the highest decimal already used under the same main number, so that no existing
 * story is renumbered and no id comes back.
 */
export function decimalIdAfter(target: string, ids: Iterable<string>): string | undefined {
  const match = PLAIN_ID.exec(target);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  const base = `${match[1]}${match[2]}`;
  let highest = 0;
  for (const id of ids) {
    if (!id.startsWith(`${base}.`)) continue;
    const first = /^\.(\d+)/.exec(id.slice(base.length))?.[1];
    if (first !== undefined) highest = Math.max(highest, Number(first));
  }
  return `${base}.${highest + 1}`;
}

/** ISO 8601 to the second, as the spec's examples write it (2026-01-09T14:32:00Z). */
export function amendmentTime(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
