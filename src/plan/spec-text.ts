import { normaliseSectionName } from './spec.js';

/**
 * Line-level edits of spec.md for `ralph amend` and `ralph sync`: find where a story is written,
 * cut it out, add text at the end of a section. Every line the edit does not name is kept as it
 * was, line ending included, so a diff of spec.md shows only the amendment.
 */

export interface SpecLines {
  lines: string[];
  newline: '\n' | '\r\n';
}

export interface SpecHeading {
  /** 0-based line index. */
  index: number;
  level: number;
  text: string;
  /** Normalised `## ` section the heading is in (its own name for a `## ` heading). */
  section: string | undefined;
}

export interface StoryBlock {
  id: string;
  title: string;
  section: string | undefined;
  /** 0-based index of the heading line. */
  start: number;
  /** One past the block's last non-blank line. */
  end: number;
  level: number;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^\s*(`{3,}|~{3,})/;
const STORY_HEADING = /^([A-Za-z][A-Za-z0-9_]*-\d+(?:\.\d+)*)(?:\s*:\s*(.*)|\s+[-–—]\s+(.*)|\s*)$/;
const RULE = /^\s{0,3}(?:-\s*){3,}$|^\s{0,3}(?:\*\s*){3,}$|^\s{0,3}(?:_\s*){3,}$/;

export function splitSpec(text: string): SpecLines {
  const newline = text.includes('\r\n') ? '\r\n' : '\n';
  return { lines: text.split(newline), newline };
}

export function joinSpec(spec: SpecLines): string {
  return spec.lines.join(spec.newline);
}

/** Headings outside code fences and HTML comments, in file order. */
export function specHeadings(lines: readonly string[]): SpecHeading[] {
  const headings: SpecHeading[] = [];
  let fence: string | undefined;
  let inComment = false;
  let section: string | undefined;
  lines.forEach((line, index) => {
    if (fence !== undefined) {
      const close = FENCE.exec(line)?.[1];
      if (close?.startsWith(fence) === true && line.trim() === close) fence = undefined;
      return;
    }
    if (inComment) {
      inComment = !line.includes('-->');
      return;
    }
    const open = FENCE.exec(line)?.[1];
    if (open !== undefined) {
      fence = open;
      return;
    }
    const trimmed = line.trimStart();
    if (trimmed.startsWith('<!--')) {
      inComment = !trimmed.slice(4).includes('-->');
      return;
    }
    const match = HEADING.exec(line);
    if (match === null) return;
    const level = match[1]?.length ?? 1;
    const text = (match[2] ?? '').trim();
    if (level === 1) section = undefined;
    if (level === 2) section = normaliseSectionName(text);
    headings.push({ index, level, text, section });
  });
  return headings;
}

/** Skips back over blank lines and a closing `---` so a block ends at its last content line. */
function trimEnd(lines: readonly string[], start: number, end: number): number {
  let at = end;
  while (at > start + 1) {
    const line = lines[at - 1] ?? '';
    if (line.trim() === '' || RULE.test(line)) at--;
    else break;
  }
  return at;
}

/** Every written definition of a story (User Stories and Amendments), not Descoped Stories. */
export function storyBlocks(lines: readonly string[]): StoryBlock[] {
  const headings = specHeadings(lines);
  const blocks: StoryBlock[] = [];
  headings.forEach((heading, i) => {
    if (heading.level < 3 || heading.section === 'descoped stories') return;
    const match = STORY_HEADING.exec(heading.text);
    const id = match?.[1];
    if (id === undefined || /^AMD-\d+$/.test(id)) return;
    const next = headings.slice(i + 1).find((h) => h.level <= heading.level);
    const end = trimEnd(lines, heading.index, next?.index ?? lines.length);
    const title = (match?.[2] ?? match?.[3] ?? '').trim();
    blocks.push({
      id,
      title,
      section: heading.section,
      start: heading.index,
      end,
      level: heading.level,
    });
  });
  return blocks;
}

/** Where a `## name` section ends: before the next `# `/`## ` heading, or at the end of file. */
export function sectionRange(
  lines: readonly string[],
  name: string,
): { heading: number; end: number } | undefined {
  const headings = specHeadings(lines);
  const at = headings.findIndex((h) => h.level === 2 && h.section === name);
  const heading = headings[at];
  if (heading === undefined) return undefined;
  const next = headings.slice(at + 1).find((h) => h.level <= 2);
  return { heading: heading.index, end: next?.index ?? lines.length };
}

/**
 * Adds `block` at the end of section `name`, creating the section (with `intro` under its
 * heading) before `beforeSection` or at the end of the file when it is missing.
 */
export function appendToSection(
  spec: SpecLines,
  name: string,
  heading: string,
  block: readonly string[],
  options: { intro?: string; beforeSection?: string } = {},
): void {
  const { lines } = spec;
  const range = sectionRange(lines, name);
  if (range !== undefined) {
    const at = trimEnd(lines, range.heading, range.end);
    lines.splice(at, 0, '', ...block);
    return;
  }
  const created = [`## ${heading}`, ...(options.intro === undefined ? [] : [options.intro]), ''];
  const before =
    options.beforeSection === undefined ? undefined : sectionRange(lines, options.beforeSection);
  if (before !== undefined) {
    lines.splice(before.heading, 0, ...created, ...block, '');
    return;
  }
  // At the end: after the last content line, keeping the file's final newline if it had one.
  const finalNewline = lines.at(-1) === '';
  const at = trimEnd(lines, -1, lines.length);
  lines.splice(at, lines.length - at, '', ...created, ...block);
  if (finalNewline) lines.push('');
}

/** Replaces lines [start, end) with `replacement`. */
export function replaceLines(
  spec: SpecLines,
  start: number,
  end: number,
  replacement: readonly string[],
): void {
  spec.lines.splice(start, end - start, ...replacement);
}

/**
 * The prose of a story (its "As a / I want / So that" lines or paragraph), without emphasis
 * markers: what prd.json's `description` holds. Stops at the acceptance criteria or a sub-heading.
 */
export function storyDescription(lines: readonly string[], block: StoryBlock): string {
  const words: string[] = [];
  for (const line of lines.slice(block.start + 1, block.end)) {
    const plain = line.replace(/\*\*|__/g, '').trim();
    if (/^acceptance criteria\s*:?$/i.test(plain) || HEADING.test(line)) break;
    if (/^(priority|technical notes|depends on)\s*:/i.test(plain)) break;
    if (plain !== '') words.push(plain);
  }
  return words.join(' ');
}

/** The `**Priority:** N` of a story block, when it has one. */
export function storyPriority(lines: readonly string[], block: StoryBlock): number | undefined {
  for (const line of lines.slice(block.start + 1, block.end)) {
    const match = /^\s*(?:\*\*|__)?priority\s*:?\s*(?:\*\*|__)?\s*:?\s*(\d+)\s*$/i.exec(line);
    if (match?.[1] !== undefined) return Number(match[1]);
  }
  return undefined;
}

/** User text on one line, for the end of a heading or a bullet (where it cannot start a block). */
export function inlineText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** User text as a line of its own: never a heading, fence, rule, list item or comment. */
export function paragraphText(text: string): string {
  const flat = inlineText(text);
  return /^(#|`{3}|~{3}|---|<!--|[-*+] |\d+[.)] )/.test(flat) ? `\\${flat}` : flat;
}

export interface StoryMarkdown {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: readonly string[];
  priority?: number | undefined;
}

/** A story as spec.md writes it, under a heading of `level` (3 in User Stories, 4 in Amendments). */
export function renderStory(story: StoryMarkdown, level: number): string[] {
  const lines = [`${'#'.repeat(level)} ${story.id}: ${inlineText(story.title)}`, ''];
  const description = paragraphText(story.description);
  if (description !== '') lines.push(description, '');
  lines.push('**Acceptance Criteria:**', '');
  for (const criterion of story.acceptanceCriteria) lines.push(`- [ ] ${inlineText(criterion)}`);
  if (story.priority !== undefined) lines.push('', `**Priority:** ${story.priority}`);
  return lines;
}
