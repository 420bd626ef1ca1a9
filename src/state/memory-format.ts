import { RalphError } from '../util/errors.js';

/**
 * memories.md: reusable learnings in four categories, one entry per bullet line (README,
 * "Memories"). The canonical entry is
 *
 *     - [2026-01-15T10:30:00Z] [tags: api,auth] What was learned
 *
 * The file is kept as blocks of its own lines, so a read-modify-write changes only the lines it
 * means to: everything else (the intro, comments, sub-headings, entries already in canonical
 * form) goes back byte for byte. Agents write the file too, loosely; `parseMemories` reads what
 * they plausibly write and refuses, with a line number, what it cannot place.
 */

export const MEMORY_CATEGORIES = ['Patterns', 'Decisions', 'Fixes', 'Context'] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];

export interface MemoryEntry {
  category: MemoryCategory;
  /** Canonical (`YYYY-MM-DDTHH:MM:SSZ`); undefined when the line had none. */
  timestamp: string | undefined;
  /** Lower case, without duplicates, in the order written. */
  tags: string[];
  /** The entry's text, continuation lines joined with spaces. */
  text: string;
  /** 1-based line of the bullet in the file it was read from. */
  line: number;
}

export type MemoryBlock =
  | { kind: 'text'; raw: string }
  | { kind: 'heading'; category: MemoryCategory; raw: string }
  /** `head`: the text on the bullet's own line (continuation lines are kept as written). */
  | { kind: 'entry'; entry: MemoryEntry; lines: string[]; head: string };

export interface MemoryDocument {
  file: string;
  blocks: MemoryBlock[];
  finalNewline: boolean;
}

const CATEGORY_NAMES: Readonly<Record<string, MemoryCategory>> = {
  patterns: 'Patterns',
  pattern: 'Patterns',
  decisions: 'Decisions',
  decision: 'Decisions',
  fixes: 'Fixes',
  fix: 'Fixes',
  context: 'Context',
};

/** A category as a person or an agent may spell it (any case, singular or plural). */
export function categoryOf(name: string): MemoryCategory | undefined {
  return CATEGORY_NAMES[name.trim().toLowerCase()];
}

const HEADING = /^##[ \t]+(.*?)[ \t#]*$/;
const BULLET = /^[-*+][ \t]+(.*)$/;
const FENCE = /^\s*(```|~~~)/;

export function parseMemories(text: string, file: string): MemoryDocument {
  const lines = text.split('\n');
  const finalNewline = lines.at(-1) === '';
  if (finalNewline) lines.pop();
  const blocks: MemoryBlock[] = [];
  let category: MemoryCategory | undefined;
  let inComment = false;
  let inFence = false;
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const previous = blocks.at(-1);
    if (inComment || inFence) {
      if (inComment && line.includes('-->')) inComment = false;
      else if (inFence && FENCE.test(line)) inFence = false;
      blocks.push({ kind: 'text', raw });
      return;
    }
    if (FENCE.test(line)) inFence = true;
    else if (line.includes('<!--') && !line.slice(line.indexOf('<!--')).includes('-->')) {
      inComment = true;
    }
    if (inComment || inFence) {
      blocks.push({ kind: 'text', raw });
      return;
    }
    const heading = HEADING.exec(line);
    if (heading !== null) {
      const name = heading[1] ?? '';
      category = categoryOf(name);
      if (category === undefined) {
        throw invalid(file, index + 1, `"## ${name}" is not a memory category`);
      }
      blocks.push({ kind: 'heading', category, raw });
      return;
    }
    const bullet = BULLET.exec(line);
    if (bullet !== null) {
      if (category === undefined) {
        throw invalid(file, index + 1, 'an entry before the first category heading');
      }
      const entry = parseEntry(bullet[1] ?? '', category, index + 1, file);
      blocks.push({ kind: 'entry', entry, lines: [raw], head: entry.text });
      return;
    }
    // An indented line right under an entry continues it (a long entry an agent wrapped).
    if (previous?.kind === 'entry' && /^[ \t]+\S/.test(line)) {
      previous.lines.push(raw);
      previous.entry.text = `${previous.entry.text} ${line.trim()}`;
      return;
    }
    blocks.push({ kind: 'text', raw });
  });
  return { file, blocks, finalNewline };
}

function parseEntry(
  body: string,
  category: MemoryCategory,
  line: number,
  file: string,
): MemoryEntry {
  let rest = body.trim();
  let timestamp: string | undefined;
  let tags: string[] | undefined;
  for (;;) {
    const bracket = /^\[([^\]]*)\][ \t]*/.exec(rest);
    if (bracket === null) break;
    const inner = (bracket[1] ?? '').trim();
    const tagList = /^tags?[ \t]*:(.*)$/i.exec(inner);
    const time = tagList === null && timestamp === undefined ? canonicalTime(inner) : undefined;
    if (tagList !== null && tags === undefined) tags = tagsOf(tagList[1] ?? '');
    else if (time !== undefined) timestamp = time;
    else break;
    rest = rest.slice(bracket[0].length);
  }
  const text = rest.trim();
  if (text === '') throw invalid(file, line, 'an entry without text');
  return { category, timestamp, tags: tags ?? [], text, line };
}

/** Tags as written (`api, Auth #security`) → `['api', 'auth', 'security']`. */
export function tagsOf(written: string): string[] {
  const tags = written
    .split(/[,\s]+/)
    .map((tag) => tag.replace(/^#/, '').toLowerCase())
    .filter((tag) => tag !== '');
  return [...new Set(tags)];
}

const TIME =
  /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:\.\d+)?)?)?[ \t]*(Z|[+-]\d{2}:?\d{2})?$/i;

const CANONICAL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** An ISO-like date or time as `YYYY-MM-DDTHH:MM:SSZ`; no zone means UTC. */
export function canonicalTime(written: string): string | undefined {
  // Most entries are already canonical (ralph wrote them): checked without building a Date.
  if (CANONICAL_TIME.test(written) && !Number.isNaN(Date.parse(written))) return written;
  const match = TIME.exec(written.trim());
  if (match === null) return undefined;
  const zone = (match[4] ?? 'Z').toUpperCase();
  const iso = `${match[1] ?? ''}T${match[2] ?? '00:00'}:${match[3] ?? '00'}${zone}`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : isoSeconds(new Date(ms));
}

export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The canonical bullet line of an entry (its timestamp must be known). */
export function renderEntry(entry: Pick<MemoryEntry, 'timestamp' | 'tags' | 'text'>): string {
  const tags = entry.tags.length > 0 ? ` [tags: ${entry.tags.join(',')}]` : '';
  return `- [${entry.timestamp ?? ''}]${tags} ${entry.text}`;
}

/** Whether the entry's bullet line is already what ralph would write. */
export function isCanonical(block: Extract<MemoryBlock, { kind: 'entry' }>): boolean {
  const first = (block.lines[0] ?? '').replace(/\r$/, '');
  return (
    block.entry.timestamp !== undefined &&
    first === renderEntry({ ...block.entry, text: block.head })
  );
}

export function serialiseMemories(document: MemoryDocument): string {
  const lines = document.blocks.flatMap((block) =>
    block.kind === 'entry' ? block.lines : [block.raw],
  );
  return lines.join('\n') + (document.finalNewline ? '\n' : '');
}

export function entriesOf(document: MemoryDocument): MemoryEntry[] {
  return document.blocks.flatMap((block) => (block.kind === 'entry' ? [block.entry] : []));
}

function invalid(file: string, line: number, problem: string): RalphError {
  return new RalphError('INVALID_MEMORIES', `${file}:${line}: ${problem}`, {
    location: { file, line },
    hint: `each entry is a "- " line under "## Patterns", "## Decisions", "## Fixes" or "## Context", e.g. "- [2026-01-15T10:30:00Z] [tags: api] what was learned"; ralph leaves the file as it is until this line is fixed`,
  });
}

/** A new file: the intro says what belongs here and how an entry looks. */
export function emptyMemories(scope: 'project' | 'feature'): string {
  const intro =
    scope === 'project'
      ? 'Learnings that hold for every feature of this project.'
      : 'Learnings for this feature; the project memories (.ralph/memories.md) apply as well.';
  return [
    '# Memories',
    '',
    intro,
    'One entry per line under its category: `- [2026-01-15T10:30:00Z] [tags: api,auth] what was learned`.',
    '',
    ...MEMORY_CATEGORIES.flatMap((category) => [`## ${category}`, '']),
  ].join('\n');
}
