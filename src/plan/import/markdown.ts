import { plainText, scanMarkdown, sectionName, type MarkdownLine } from './markdown-lines.js';
import { parseStoryBody } from './markdown-story.js';
import {
  STORY_ID_TEXT,
  headingStatus,
  idsIn,
  isStoryIdPrefix,
  shortTitle,
  titlePriority,
  type ImportedPlan,
  type ImportedStory,
} from './story-fields.js';

/**
 * Markdown PRDs and plans to stories, in three tries, the first that finds any wins:
 *  1. story headings: `### STORY-001: …` (Ralph Hybrid spec.md), `### US-001: …` (snarktank),
 *     `### Task 3: …` (checkbox plans), each with its body (markdown-story.ts);
 *  2. numbered headings (`### 7. Decide …`) that hold checkbox items: one story each;
 *  3. a flat checklist: each top-level `- [ ]` item (or `- STORY-001: …`) is a story, its nested
 *     items are its criteria, and `## Priority N` above it gives its priority.
 * Document-level checklists (Success Criteria, Definition of Done, Goals, Out of Scope, …) and
 * the Descoped Stories of a spec are never stories; neither is anything in a code block.
 */

const ID_HEADING = new RegExp(
  String.raw`^(${STORY_ID_TEXT})(?:\s*(?::|[-–—]|\.(?!\d))\s*(.*)|\s*)$`,
);
const TASK_HEADING =
  /^(?:task|story|user story|feature|ticket|issue)\s*#?\s*(\d+(?:\.\d+)*)\s*(?:[:.)–—-]\s*(.*))?$/i;
/** `### Step 3: …` as a plan's unit of work, when the plan has no Task headings (else a part of one). */
const STEP_HEADING = /^step\s*#?\s*(\d+(?:\.\d+)*)\s*(?:[:.)–—-]\s*(.*))?$/i;
const NUMBERED_HEADING = /^(\d+(?:\.\d+)*)[.)]\s+(.+)$/;
const ID_ITEM = new RegExp(String.raw`^(${STORY_ID_TEXT})\s*(?::|[-–—])\s*(.+)$`);

/** Sections about the document as a whole: their checklists are not work items. */
const DOCUMENT_SECTIONS =
  /^(?:success criteria|manual verification|manual testing|test plan|success metrics|definition of done|goals?|non[- ]goals?|out of scope|open questions|questions|acceptance criteria|.*checklist|quality gates?|risks?|assumptions|descoped stories|glossary|references|global constraints|constraints|prerequisites|review|sign[- ]?off|notes)\b/;

const PRIORITY_GROUP =
  /^(?:priority\s*[:#-]?\s*(\d+)|p([0-9])\b|(critical|high|medium|low)(?:[- ]priority)?\b)/i;

interface Heading {
  index: number;
  level: number;
  text: string;
}

export function importMarkdown(text: string): ImportedPlan {
  const { lines, frontTitle } = scanMarkdown(text);
  const excluded = excludedLines(lines);
  const headings: Heading[] = [];
  lines.forEach((line, index) => {
    if (line.kind === 'heading' && !excluded[index])
      headings.push({ index, level: line.level, text: line.text });
  });
  const title =
    frontTitle ?? headings.find((heading) => heading.level === 1)?.text.replace(/^PRD:\s*/i, '');
  const plan = (stories: ImportedStory[], style: string): ImportedPlan => ({
    title: title === undefined ? undefined : plainText(title),
    description: undefined,
    stories,
    style,
    warnings: [],
  });

  const byId = headings.filter((heading) => storyHeading(heading.text)?.id !== undefined);
  if (byId.length > 0) {
    const prefixes = [
      ...new Set(byId.map((h) => storyHeading(h.text)?.id?.replace(/-[\d.]+$/, ''))),
    ];
    return plan(headingStories(lines, byId, excluded), `story headings (${prefixes.join(', ')})`);
  }
  // Below the title: `# Step 1: …` names the whole document, not one task of it.
  const sections = headings.filter((heading) => heading.level > 1);
  const tasks = sections.filter((heading) => TASK_HEADING.test(plainText(heading.text)));
  if (tasks.length > 0) return plan(headingStories(lines, tasks, excluded), 'task headings');
  const steps = sections.filter((heading) => STEP_HEADING.test(plainText(heading.text)));
  if (steps.length > 0) return plan(headingStories(lines, steps, excluded), 'step headings');
  const numbered = sections.filter(
    (heading) =>
      NUMBERED_HEADING.test(plainText(heading.text)) && directBoxes(lines, heading.index),
  );
  if (numbered.length > 0)
    return plan(headingStories(lines, numbered, excluded), 'numbered headings with checkboxes');
  return plan(checklistStories(lines, excluded), 'checklist items');
}

function storyHeading(raw: string): { id: string | undefined; title: string } | undefined {
  const status = headingStatus(plainText(raw));
  const id = ID_HEADING.exec(status.text);
  if (id?.[1] !== undefined && isStoryIdPrefix(id[1]))
    return { id: id[1], title: (id[2] ?? '').trim() };
  const task = TASK_HEADING.exec(status.text) ?? STEP_HEADING.exec(status.text);
  if (task !== null) return { id: undefined, title: (task[2] ?? '').trim() || status.text };
  const numbered = NUMBERED_HEADING.exec(status.text);
  if (numbered !== null) return { id: undefined, title: (numbered[2] ?? '').trim() };
  return undefined;
}

/** Lines under a document-level heading, down to the next heading of the same or higher level. */
function excludedLines(lines: readonly MarkdownLine[]): boolean[] {
  const result: boolean[] = [];
  let until: number | undefined;
  for (const line of lines) {
    if (line.kind === 'rule') until = undefined;
    if (line.kind === 'heading') {
      if (until !== undefined && line.level <= until) until = undefined;
      // The H1 is the document's title ("… Checklist"), not one of its sections.
      if (until === undefined && line.level > 1 && DOCUMENT_SECTIONS.test(sectionName(line.text)))
        until = line.level;
    }
    result.push(until !== undefined);
  }
  return result;
}

function directBoxes(lines: readonly MarkdownLine[], from: number): boolean {
  for (let index = from + 1; index < lines.length; index++) {
    const line = lines[index];
    if (line === undefined || line.kind === 'heading') return false;
    if (line.kind === 'item' && line.checked !== undefined) return true;
  }
  return false;
}

function headingStories(
  lines: readonly MarkdownLine[],
  starts: readonly Heading[],
  excluded: readonly boolean[],
): ImportedStory[] {
  return starts.map((start, position) => {
    const next = starts[position + 1]?.index ?? lines.length;
    let end = start.index + 1;
    // The body ends at the next story, or at a heading as high as the story's own (a new section),
    // or where a document-level section begins.
    while (end < next) {
      const line = lines[end];
      if (line?.kind === 'heading' && (line.level <= start.level || excluded[end])) break;
      end += 1;
    }
    const status = headingStatus(plainText(start.text));
    const parsed = storyHeading(start.text);
    const marked = titlePriority(parsed?.title ?? status.text);
    const body = parseStoryBody(lines.slice(start.index + 1, end));
    const title = marked.title === '' ? (parsed?.id ?? status.text) : marked.title;
    return {
      id: parsed?.id,
      title: shortTitle(title),
      description: body.description || title,
      acceptanceCriteria: body.acceptanceCriteria,
      priority: body.priority ?? marked.priority ?? groupPriority(lines, start.index),
      passes: body.status ?? status.done ?? body.allChecked,
      dependsOn: body.dependsOn,
      notes: body.notes,
      amendment: amendmentAbove(lines, start),
      where: `line ${lines[start.index]?.line ?? 0}`,
    };
  });
}

/**
 * The `### AMD-001: Title (2026-01-09T14:32:00Z)` a story sits under in a spec's Amendments
 * section, with the type its `**Type:**` line names: the prd.json `amendment` of the story.
 */
function amendmentAbove(
  lines: readonly MarkdownLine[],
  start: Heading,
): ImportedStory['amendment'] {
  for (let at = start.index - 1; at >= 0; at--) {
    const line = lines[at];
    if (line?.kind !== 'heading' || line.level >= start.level) continue;
    const heading = /^(AMD-\d+)\b.*?(?:\(([^()]*)\))?\s*$/.exec(plainText(line.text));
    if (heading?.[1] === undefined) return undefined;
    let type: 'add' | 'correct' | 'remove' = 'add';
    for (const next of lines.slice(at + 1, start.index)) {
      if (next.kind !== 'text' && next.kind !== 'item') continue;
      const named = /^type\s*:\s*(add|correct|remove)\b/i.exec(plainText(next.text))?.[1];
      if (named !== undefined) type = named.toLowerCase() as typeof type;
    }
    const stamp = heading[2];
    return {
      id: heading[1],
      type,
      ...(stamp !== undefined && /^\d{4}-\d{2}-\d{2}T/.test(stamp) ? { timestamp: stamp } : {}),
    };
  }
  return undefined;
}

/** The priority of the `## Priority N` (or `## High priority`) section above a line. */
function groupPriority(lines: readonly MarkdownLine[], index: number): number | undefined {
  let level = 7;
  for (let at = index - 1; at >= 0; at--) {
    const line = lines[at];
    if (line?.kind !== 'heading' || line.level >= level) continue;
    level = line.level;
    const match = PRIORITY_GROUP.exec(sectionName(line.text));
    if (match !== null) {
      if (match[1] !== undefined) return Number(match[1]);
      if (match[2] !== undefined) return Number(match[2]) + 1;
      const word = (match[3] ?? '').toLowerCase();
      return word === 'low' ? 3 : word === 'medium' ? 2 : 1;
    }
  }
  return undefined;
}

function checklistStories(
  lines: readonly MarkdownLine[],
  excluded: readonly boolean[],
): ImportedStory[] {
  const stories: ImportedStory[] = [];
  let current: { story: ImportedStory; indent: number } | undefined;
  lines.forEach((line, index) => {
    if (line.kind === 'heading' || line.kind === 'rule') {
      current = undefined;
      return;
    }
    if (line.kind !== 'item' || excluded[index]) return;
    const text = plainText(line.text);
    if (current !== undefined && line.indent > current.indent) {
      if (text !== '') current.story.acceptanceCriteria.push(text);
      return;
    }
    current = undefined;
    const idItem = ID_ITEM.exec(text);
    const id = idItem?.[1] !== undefined && isStoryIdPrefix(idItem[1]) ? idItem[1] : undefined;
    if (line.checked === undefined && id === undefined) return;
    if (text === '') return;
    const marked = titlePriority(id === undefined ? text : (idItem?.[2] ?? text));
    const title = shortTitle(marked.title);
    const story: ImportedStory = {
      id,
      title,
      description: marked.title,
      acceptanceCriteria: [],
      priority: marked.priority ?? groupPriority(lines, index),
      passes: line.checked === true,
      dependsOn: idsIn(/depends on[^.;]*/i.exec(text)?.[0] ?? ''),
      notes: undefined,
      where: `line ${line.line}`,
    };
    stories.push(story);
    current = { story, indent: line.indent };
  });
  for (const story of stories) {
    if (story.acceptanceCriteria.length === 0) story.acceptanceCriteria.push(story.title);
  }
  return stories;
}
