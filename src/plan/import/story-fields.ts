/**
 * What `ralph import` reads out of one story's text, whatever the style: labels such as
 * `**Priority:** High`, `Status: [x]` or `Depends on: STORY-002`, done markers in a heading,
 * priority words. Shared by the Markdown and JSON importers so both read "P1" or "done" alike.
 */

/** One story as an importer found it, before ids are assigned and the prd.json is built. */
export interface ImportedStory {
  /** The id as written (STORY-001, US-004, TASK-12), or undefined when the source has none. */
  id: string | undefined;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  priority: number | undefined;
  passes: boolean;
  dependsOn: string[];
  notes: string | undefined;
  /** Set for a story defined under an `### AMD-NNN` heading of a spec's Amendments section. */
  amendment?: { id: string; type: 'add' | 'correct' | 'remove'; timestamp?: string } | undefined;
  /** Where in the source the story starts: `line 12` or `tasks[3]`, for warnings. */
  where: string;
}

export interface ImportedPlan {
  title: string | undefined;
  description: string | undefined;
  stories: ImportedStory[];
  /** How the stories were recognised, for the summary line: "story headings (US-NNN)". */
  style: string;
  warnings: string[];
}

export const STORY_ID_TEXT = String.raw`[A-Za-z][A-Za-z0-9_]*-\d+(?:\.\d+)*`;

/**
 * Id prefixes of things that are not stories although they look like ids: amendments, epics,
 * phases and the like hold stories; open questions and decisions are not work.
 */
const NOT_STORY_PREFIXES = new Set([
  'AMD',
  'EPIC',
  'PHASE',
  'MILESTONE',
  'SPRINT',
  'ADR',
  'OQ',
  'Q',
  'RFC',
  'CHUNK',
]);

export function isStoryIdPrefix(id: string): boolean {
  const prefix = id.replace(/-[\d.]+$/, '').toUpperCase();
  return !NOT_STORY_PREFIXES.has(prefix);
}

/** Story ids mentioned in a text (`Depends on: STORY-001, US-002`); "None" gives none. */
export function idsIn(text: string): string[] {
  return [...text.matchAll(new RegExp(STORY_ID_TEXT, 'g'))].map((match) => match[0]);
}

/**
 * 1 = highest. P0/P1 style counts from P0 (P0 → 1, P1 → 2); words map as prd.json's priority
 * words do; a plain number is taken as written.
 */
export function parsePriority(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  const p = /^\[?p([0-9])\]?\b/.exec(text);
  if (p !== null) return Number(p[1]) + 1;
  const number = /^#?(\d{1,4})\b/.exec(text);
  if (number !== null) return Number(number[1]);
  if (/^(?:critical|urgent|blocker|highest|must)/.test(text)) return 1;
  if (text.startsWith('high')) return 1;
  if (/^(?:medium|normal|should|moderate)/.test(text)) return 2;
  if (/^(?:low|could|nice|minor)/.test(text)) return 3;
  if (/^(?:won'?t|lowest|later|someday)/.test(text)) return 4;
  return undefined;
}

/** true/false for a status text that says done/not done; undefined when it says neither. */
export function statusPasses(value: string): boolean | undefined {
  const text = value.toLowerCase();
  if (
    /\[ \]|incomplete|not (?:yet )?(?:done|complete|started)|\btodo\b|to do|in[ -]progress|pending|\bopen\b|\bidea\b|blocked|\bwip\b|draft|planned|backlog|failing/.test(
      text,
    )
  )
    return false;
  if (
    /\[x\]|✅|✔|✓|\bdone\b|complete|passing|passed|finished|shipped|implemented|merged|closed/.test(
      text,
    )
  )
    return true;
  return undefined;
}

/** A heading's done marker (`✅ US-001: …`, `[x] Task 2`, `… (done)`) and the title without it. */
export function headingStatus(text: string): { text: string; done: boolean | undefined } {
  let done: boolean | undefined;
  let rest = text;
  const box = /^\s*\[([ xX])\]\s*/.exec(rest);
  if (box !== null) {
    done = box[1] !== ' ';
    rest = rest.slice(box[0].length);
  }
  if (/[✅✔✓]/u.test(rest)) {
    done = true;
    rest = rest.replace(/\s*[✅✔✓]\uFE0F?\s*/gu, ' ');
  }
  const paren = /\s*\((done|completed?|finished|todo|in progress|wip)\)\s*$/i.exec(rest);
  if (paren !== null) {
    done = statusPasses(paren[1] ?? '');
    rest = rest.slice(0, paren.index);
  }
  if (/^~~.*~~$/.test(rest.trim())) done = true;
  return { text: rest.trim(), done };
}

/** `[P0] Research: …` → priority 1 and the title without the marker. */
export function titlePriority(title: string): { title: string; priority: number | undefined } {
  const match = /^\[(p[0-9]|critical|high|medium|low)\]\s*/i.exec(title);
  if (match === null) return { title, priority: undefined };
  return { title: title.slice(match[0].length), priority: parsePriority(match[1]) };
}

/** A title short enough for a list: the first sentence of a long item, at most ~100 chars. */
export function shortTitle(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= 100) return flat;
  const sentence = /^(.{20,100}?[.!?])\s/.exec(flat)?.[1];
  if (sentence !== undefined) return sentence;
  const cut = flat.slice(0, 100);
  const space = cut.lastIndexOf(' ');
  return `${(space > 40 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
