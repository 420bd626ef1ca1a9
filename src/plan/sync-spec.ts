import type { TaskListDocument } from './read.js';
import {
  appendToSection,
  inlineText,
  paragraphText,
  joinSpec,
  renderStory,
  replaceLines,
  sectionRange,
  splitSpec,
  storyBlocks,
  type SpecLines,
  type StoryBlock,
} from './spec-text.js';
import { readSpecForSync, sameCriteria, type SyncOutcome, type SyncRequest } from './sync-prd.js';
import type { Story } from './types.js';

/**
 * `ralph sync --from prd`: spec.md from prd.json, for people who plan in JSON. A missing spec.md
 * is written whole; an existing one gets the stories it lacks, and the titles and criteria
 * prd.json changed, edited in place so everything else in it (the prose, the questions, the
 * amendment record) stays as written. Stories only spec.md has go only when confirmed.
 */

const AC_LABEL = /^\s*(?:\*\*|__)?\s*acceptance criteria\s*:?\s*(?:\*\*|__)?\s*:?\s*$/i;
const BULLET = /^(\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?)/;

function active(doc: TaskListDocument): Story[] {
  return doc.taskList.stories.filter((s) => s.amendment?.type !== 'remove');
}

export function specFromPrd(doc: TaskListDocument, now: Date): SyncOutcome {
  const title = doc.taskList.name ?? doc.taskList.description ?? 'Feature';
  const lines = [
    '---',
    `created: ${now.toISOString()}`,
    '---',
    '',
    `# ${inlineText(title)}`,
    '',
    '## Problem Statement',
    '',
    paragraphText(doc.taskList.description ?? title),
    '',
    '## Success Criteria',
    '',
    '- [ ] Every user story below passes its acceptance criteria',
    '',
    '## User Stories',
  ];
  for (const story of active(doc)) lines.push('', ...renderStory(storyMarkdown(story), 3));
  lines.push('', '## Out of Scope', '', '- Anything not listed under User Stories', '');
  return {
    text: lines.join('\n'),
    changes: active(doc).map((s) => `added ${s.id}: ${s.title}`),
    warnings: [],
    keptOrphans: [],
  };
}

function storyMarkdown(story: Story) {
  return {
    id: story.id,
    title: story.title,
    description: story.description,
    acceptanceCriteria: story.acceptanceCriteria,
    priority: story.priority,
  };
}

export function syncSpecFromPrd(
  specText: string,
  specFile: string,
  doc: TaskListDocument,
  request: SyncRequest = {},
): SyncOutcome {
  const spec = readSpecForSync(specText, specFile);
  const lines = splitSpec(specText);
  const changes: string[] = [];
  const warnings: string[] = [];
  const stories = active(doc);
  const listed = new Set(stories.map((s) => s.id));
  const descoped = new Set(spec.descoped.map((d) => d.storyId));
  const edits: { block: StoryBlock; story: Story }[] = [];
  for (const story of stories) {
    const specStory = spec.stories.find((s) => s.id === story.id);
    if (specStory === undefined) continue;
    const block = storyBlocks(lines.lines).find((b) => b.start + 1 === specStory.line);
    const titleChanged = specStory.title.trim() !== story.title.trim();
    const criteriaChanged = !sameCriteria(specStory.acceptanceCriteria, story.acceptanceCriteria);
    if (block === undefined || (!titleChanged && !criteriaChanged)) continue;
    edits.push({ block, story });
    if (titleChanged) changes.push(`${story.id}: title "${specStory.title}" → "${story.title}"`);
    if (criteriaChanged) changes.push(`${story.id}: acceptance criteria updated`);
  }
  const orphans = spec.stories.filter((s) => !listed.has(s.id));
  const removing = request.confirmOrphanRemoval === true ? orphans : [];
  for (const orphan of orphans) {
    if (removing.includes(orphan)) changes.push(`removed ${orphan.id} (not in prd.json)`);
    else warnings.push(`${orphan.id} is in spec.md but not in prd.json; kept`);
  }
  if (removing.length === 0 && orphans.length > 0) {
    warnings.push(
      'run `ralph sync --from prd --confirm-orphan-removal` to remove them from spec.md',
    );
  }
  const cuts = removing.flatMap((orphan) =>
    storyBlocks(lines.lines).filter((b) => b.id === orphan.id),
  );
  // Edits go bottom-up so that the line numbers of blocks not yet edited stay valid.
  const steps: { at: number; run: () => void }[] = [
    ...edits.map(({ block, story }) => ({
      at: block.start,
      run: () => {
        rewrite(lines, block, story);
      },
    })),
    ...cuts.map((block) => ({
      at: block.start,
      run: () => {
        replaceLines(lines, block.start, block.end, []);
      },
    })),
  ];
  for (const step of steps.sort((a, b) => b.at - a.at)) step.run();
  for (const story of stories) {
    if (spec.stories.some((s) => s.id === story.id) || descoped.has(story.id)) continue;
    addStory(lines, story);
    changes.push(`added ${story.id}: ${story.title}`);
  }
  return { text: joinSpec(lines), changes, warnings, keptOrphans: orphans.map((o) => o.id) };
}

function addStory(lines: SpecLines, story: Story): void {
  const range = sectionRange(lines.lines, 'user stories') ?? sectionRange(lines.lines, 'stories');
  const block = renderStory(storyMarkdown(story), 3);
  if (range !== undefined) {
    const name = lines.lines[range.heading]?.replace(/^\s*#+\s*/, '') ?? 'User Stories';
    appendToSection(
      lines,
      name.toLowerCase().includes('user') ? 'user stories' : 'stories',
      name,
      block,
    );
    return;
  }
  appendToSection(lines, 'user stories', 'User Stories', block, { beforeSection: 'out of scope' });
}

/** New heading title and criteria bullets in place; every other line of the story stays. */
function rewrite(lines: SpecLines, block: StoryBlock, story: Story): void {
  const text = lines.lines;
  const label = text.slice(block.start + 1, block.end).findIndex((l) => AC_LABEL.test(l));
  if (label === -1) {
    replaceLines(lines, block.end, block.end, [
      '',
      '**Acceptance Criteria:**',
      '',
      ...story.acceptanceCriteria.map((c) => `- [ ] ${inlineText(c)}`),
    ]);
  } else {
    const from = block.start + 1 + label + 1;
    let first = from;
    while (first < block.end && (text[first] ?? '').trim() === '') first++;
    let last = first;
    while (
      last < block.end &&
      (BULLET.test(text[last] ?? '') || /^\s{2,}\S/.test(text[last] ?? ''))
    )
      last++;
    const bullet = BULLET.exec(text[first] ?? '')?.[1] ?? '- [ ] ';
    replaceLines(
      lines,
      first,
      last,
      story.acceptanceCriteria.map((c) => `${bullet}${inlineText(c)}`),
    );
  }
  text[block.start] = `${'#'.repeat(block.level)} ${story.id}: ${inlineText(story.title)}`;
}
