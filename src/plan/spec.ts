/**
 * spec.md, the human-written source of truth for a feature's requirements (Ralph Hybrid format).
 * A line-based reader, not a Markdown library: it knows ATX headings, bullet lists, fenced code
 * blocks and HTML comments, which is all the format uses, and it runs in one pass.
 */
import type { SourceLocation } from '../util/errors.js';
import type { StoryAmendment } from './types.js';

export type Severity = 'error' | 'warning';
export type AmendmentType = StoryAmendment['type'];

export interface SpecStory {
  id: string;
  title: string;
  /** 1-based line of the story's heading. */
  line: number;
  /** Checkbox removed, trimmed, in file order. */
  acceptanceCriteria: string[];
  /** Set when the story was defined under an `### AMD-NNN` heading in `## Amendments`. */
  amendmentId: string | undefined;
}

export interface SpecAmendment {
  id: string;
  title: string;
  /** The parenthesised ISO-8601 time at the end of the heading, when present. */
  timestamp: string | undefined;
  /** From the `**Type:** ADD | CORRECT | REMOVE` line; undefined when the line is missing. */
  type: AmendmentType | undefined;
  line: number;
}

export interface DescopedStory {
  storyId: string;
  title: string;
  /** From the heading's `(Removed AMD-003)` suffix. */
  amendmentId: string | undefined;
  line: number;
}

export interface SpecProblem {
  severity: Severity;
  message: string;
  location?: SourceLocation;
}

export interface Spec {
  file: string;
  /** Front matter `created`, verbatim. */
  created: string | undefined;
  /** The first `# ` heading. */
  title: string | undefined;
  /** Normalised `## ` section names (see normaliseSectionName), unique, in file order. */
  sections: string[];
  /** Active stories: User Stories plus stories added by amendments, minus descoped ones. */
  stories: SpecStory[];
  amendments: SpecAmendment[];
  descoped: DescopedStory[];
  /** Problems noticed while reading (duplicate ids, id-less story headings, …). */
  anomalies: SpecProblem[];
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
// Fences are recognised at any indent so that a fence inside a list item still hides its content.
const FENCE_OPEN = /^\s*(`{3,}|~{3,})(.*)$/;
const STORY_ID = String.raw`[A-Za-z][A-Za-z0-9_]*-\d+(?:\.\d+)*`;
const ID_HEADING = new RegExp(String.raw`^(${STORY_ID})(?:\s*:\s*(.*)|\s+[-–—]\s+(.*)|\s*)$`);
const AMD_ID = /^AMD-\d+$/;
const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
const CHECKBOX = /^\[[ xX]\](?:\s+|$)/;
const AC_LABEL = /^\s*(?:\*\*|__)?\s*acceptance criteria\s*:?\s*(?:\*\*|__)?\s*:?\s*$/i;
const TYPE_LINE = /^\s*(?:\*\*|__)?type\s*:?\s*(?:\*\*|__)?\s*:?\s*(add|correct|remove)\b/i;
const TRAILING_PAREN = /\s*\(([^()]*)\)\s*$/;

const STORIES_SECTIONS = new Set(['user stories', 'stories']);

/** Lower case, no emphasis or numbering, single spaces: `## 3. **User Stories:**` → `user stories`. */
export function normaliseSectionName(text: string): string {
  return text
    .replace(/[*_`]/g, '')
    .replace(/^\s*\d+[.)]\s+/, '')
    .replace(/:\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

interface RawStory extends SpecStory {
  level: number;
}

type Note = (severity: Severity, message: string, line: number) => void;

function parseIdHeading(text: string): { id: string; title: string } | undefined {
  const match = ID_HEADING.exec(text);
  if (match?.[1] === undefined) return undefined;
  return { id: match[1], title: (match[2] ?? match[3] ?? '').trim() };
}

/** Splits `Title (suffix)` into the title and the suffix when `accept` says the suffix is meta. */
function splitSuffix(title: string, accept: (inner: string) => boolean): [string, string?] {
  const match = TRAILING_PAREN.exec(title);
  const inner = match?.[1]?.trim();
  if (match === null || inner === undefined || !accept(inner)) return [title];
  return [title.slice(0, match.index).trim(), inner];
}

function readFrontMatter(lines: string[]): { created: string | undefined; bodyStart: number } {
  if (lines[0]?.trimEnd() !== '---') return { created: undefined, bodyStart: 0 };
  const end = lines.findIndex((line, i) => i > 0 && /^(?:---|\.\.\.)\s*$/.test(line));
  if (end === -1) return { created: undefined, bodyStart: 0 };
  let created: string | undefined;
  for (const line of lines.slice(1, end)) {
    const match = /^created\s*:\s*(.*?)\s*$/.exec(line);
    if (match?.[1] !== undefined) created = match[1].replace(/^(["'])(.*)\1$/, '$2');
  }
  return { created, bodyStart: end + 1 };
}

/**
 * Yields the lines that carry Markdown structure with their 1-based numbers, skipping the inside
 * of code fences and HTML comments, so that an example story heading in either never counts.
 */
function* contentLines(
  lines: string[],
  start: number,
  onUnclosedFence: (line: number) => void,
): Generator<[string, number]> {
  let fence: { char: string; length: number; line: number } | undefined;
  let inComment = false;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (fence !== undefined) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(line)?.[1];
      if (close?.startsWith(fence.char) === true && close.length >= fence.length) fence = undefined;
      continue;
    }
    if (inComment) {
      inComment = !line.includes('-->');
      continue;
    }
    const open = FENCE_OPEN.exec(line);
    const marker = open?.[1];
    if (marker !== undefined && !(marker.startsWith('`') && open?.[2]?.includes('`') === true)) {
      fence = { char: marker.charAt(0), length: marker.length, line: i + 1 };
      continue;
    }
    const trimmed = line.trimStart();
    if (trimmed.startsWith('<!--')) {
      inComment = !trimmed.slice(4).includes('-->');
      continue;
    }
    yield [line, i + 1];
  }
  if (fence !== undefined) onUnclosedFence(fence.line);
}

/** Reads spec.md. Never throws: whatever cannot be understood is reported in `anomalies`. */
export function parseSpec(text: string, file: string): Spec {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const { created, bodyStart } = readFrontMatter(lines);
  const anomalies: SpecProblem[] = [];
  const note: Note = (severity, message, line) => {
    anomalies.push({ severity, message, location: { file, line } });
  };
  const sections: string[] = [];
  const raw: RawStory[] = [];
  const amendments: SpecAmendment[] = [];
  const descoped: DescopedStory[] = [];
  let title: string | undefined;
  let section: string | undefined;
  let story: RawStory | undefined;
  let amendment: SpecAmendment | undefined;
  let criteriaOpen = false;

  const onUnclosedFence = (line: number): void => {
    note('warning', 'code fence is never closed', line);
  };
  const startStory = (id: string, title: string, line: number, level: number): RawStory => {
    const started = { id, title, line, acceptanceCriteria: [], amendmentId: amendment?.id, level };
    raw.push(started);
    return started;
  };
  for (const [line, lineNo] of contentLines(lines, bodyStart, onUnclosedFence)) {
    const heading = HEADING.exec(line);
    if (heading !== null) {
      const level = heading[1]?.length ?? 1;
      const text = (heading[2] ?? '').trim();
      criteriaOpen = false;
      if (story !== undefined && level <= story.level) story = undefined;
      if (level <= 2) {
        story = undefined;
        amendment = undefined;
        if (level === 1) {
          title ??= text;
          section = undefined;
        } else {
          section = normaliseSectionName(text);
          if (!sections.includes(section)) sections.push(section);
        }
        continue;
      }
      if (story !== undefined && AC_LABEL.test(text)) {
        criteriaOpen = true;
        continue;
      }
      const parsed = parseIdHeading(text);
      if (section !== undefined && STORIES_SECTIONS.has(section)) {
        if (parsed !== undefined) {
          story = startStory(parsed.id, parsed.title, lineNo, level);
        } else if (level === 3) {
          const expected = '(expected "### STORY-001: Title")';
          note(
            'warning',
            `heading "${text}" under User Stories has no story id ${expected}`,
            lineNo,
          );
        }
      } else if (section === 'amendments') {
        if (level === 3) amendment = undefined;
        if (parsed !== undefined && level === 3 && AMD_ID.test(parsed.id)) {
          const [amdTitle, timestamp] = splitSuffix(parsed.title, (s) =>
            /^\d{4}-\d\d-\d\d/.test(s),
          );
          amendment = { id: parsed.id, title: amdTitle, timestamp, type: undefined, line: lineNo };
          amendments.push(amendment);
        } else if (parsed !== undefined) {
          story = startStory(parsed.id, parsed.title, lineNo, level);
        }
      } else if (section === 'descoped stories' && level === 3 && parsed !== undefined) {
        const [storyTitle, suffix] = splitSuffix(parsed.title, (s) => /^removed\b/i.test(s));
        const amendmentId = suffix === undefined ? undefined : /AMD-\d+/.exec(suffix)?.[0];
        // The preserved original definition may repeat the heading; one entry per story.
        if (!descoped.some((d) => d.storyId === parsed.id)) {
          descoped.push({ storyId: parsed.id, title: storyTitle, amendmentId, line: lineNo });
        }
      }
      continue;
    }
    if (amendment !== undefined && amendment.type === undefined) {
      const type = TYPE_LINE.exec(line)?.[1];
      if (type !== undefined) amendment.type = type.toLowerCase() as AmendmentType;
    }
    if (story === undefined) continue;
    if (AC_LABEL.test(line)) {
      criteriaOpen = true;
    } else if (criteriaOpen) {
      const item = BULLET.exec(line)?.[1];
      const last = story.acceptanceCriteria.length - 1;
      if (item !== undefined) {
        const criterion = item.replace(CHECKBOX, '').trim();
        if (criterion !== '') story.acceptanceCriteria.push(criterion);
      } else if (/^\s{2,}\S/.test(line) && last >= 0) {
        // A wrapped criterion continues on an indented line.
        story.acceptanceCriteria[last] = `${story.acceptanceCriteria[last] ?? ''} ${line.trim()}`;
      } else if (line.trim() !== '') {
        criteriaOpen = false;
      }
    }
  }

  const stories = resolveStories(raw, amendments, descoped, note);
  return { file, created, title, sections, stories, amendments, descoped, anomalies };
}

/**
 * Picks the active definition of each story. A story restated under a CORRECT amendment
 * supersedes the earlier definition; stories under a REMOVE amendment or listed under
 * Descoped Stories are not active, because the descope is the later, deliberate decision.
 * Any other repeated id is an error: sync could not tell which definition prd.json should follow.
 */
function resolveStories(
  raw: RawStory[],
  amendments: SpecAmendment[],
  descoped: DescopedStory[],
  note: Note,
): SpecStory[] {
  const typeOf = new Map<string, AmendmentType | undefined>();
  for (const amd of amendments) if (!typeOf.has(amd.id)) typeOf.set(amd.id, amd.type);
  const byId = new Map<string, SpecStory>();
  for (const { id, title, line, acceptanceCriteria, amendmentId } of raw) {
    const story: SpecStory = { id, title, line, acceptanceCriteria, amendmentId };
    const type = story.amendmentId === undefined ? undefined : typeOf.get(story.amendmentId);
    if (type === 'remove') continue;
    const first = byId.get(story.id);
    if (first === undefined || type === 'correct') {
      byId.set(story.id, story);
    } else {
      note(
        'error',
        `${story.id} is defined twice (lines ${first.line} and ${story.line})`,
        story.line,
      );
    }
  }
  const stories: SpecStory[] = [];
  for (const story of byId.values()) {
    const gone = descoped.find((d) => d.storyId === story.id);
    if (gone !== undefined) {
      const where = `an active story (line ${story.line}) and under Descoped Stories (line ${gone.line})`;
      note('error', `${story.id} is both ${where}`, story.line);
      continue;
    }
    if (story.acceptanceCriteria.length === 0) {
      note('warning', `${story.id} has no acceptance criteria`, story.line);
    }
    stories.push(story);
  }
  return stories;
}

/**
 * The seed's preflight table rates spec.md structure WARN throughout. We are stricter in one place:
 * without a User Stories section there is nothing to sync prd.json against, so that is an error.
 * A missing Problem Statement or Success Criteria weakens the plan but does not stop a run
 * (warning); Out of Scope is recommended only (warning, as in the seed's sample output).
 */
export function structureProblems(spec: Spec): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const has = (name: string): boolean => spec.sections.includes(name);
  const add = (severity: Severity, message: string): void => {
    problems.push({ severity, message, location: { file: spec.file } });
  };
  const missing = (severity: Severity, name: string, suffix = ''): void => {
    add(severity, `spec.md has no "${name}" section${suffix}`);
  };
  if (!hasStoriesSection(spec)) missing('error', 'User Stories');
  if (!has('problem statement')) missing('warning', 'Problem Statement');
  if (!has('success criteria')) missing('warning', 'Success Criteria');
  if (!has('out of scope')) missing('warning', 'Out of Scope', ' (recommended)');
  if (spec.title === undefined) add('warning', 'spec.md has no "# " title');
  return [...problems, ...spec.anomalies];
}

/** True when spec.md has a section to hold stories (`## User Stories`, or plain `## Stories`). */
export function hasStoriesSection(spec: Spec): boolean {
  return spec.sections.some((s) => STORIES_SECTIONS.has(s));
}
