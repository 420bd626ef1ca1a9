import { RalphError } from '../util/errors.js';
import { amendmentTime, decimalIdAfter, nextAmendmentId, nextStoryId } from './amend-ids.js';
import { changePrd } from './amend-prd.js';
import { amendmentHeader, changeTable, progressEntry, type FieldChange } from './amend-render.js';
import type { PlainJson } from './json-array-edit.js';
import type { TaskListDocument } from './read.js';
import { parseSpec, type Spec } from './spec.js';
import { appendToSection, joinSpec, renderStory, splitSpec, storyBlocks } from './spec-text.js';
import { compareStoryIds } from './story-id.js';
import type { Story } from './types.js';
import type { JsonValue } from './write.js';

/**
 * `ralph amend add | correct`: the pure part. It takes the three files' text and returns their
 * new text; amend-files.ts reads, checks the lock and writes. Every amendment gets the next
 * AMD-NNN, a record in spec.md's Amendments section, metadata on the story in prd.json and an
 * entry in progress.txt (Ralph Hybrid spec, Amendment System).
 */

export interface AmendFiles {
  specText: string;
  specFile: string;
  prd: TaskListDocument;
  progressText: string;
  now: Date;
  /** The command line as logged in progress.txt. */
  command: string;
}

export interface AmendOutcome {
  amendmentId: string;
  specText: string;
  prdText: string;
  /** Appended to progress.txt. */
  progressEntry: string;
  warnings: string[];
  /** Stories the amendment added, changed or removed. */
  storyIds: string[];
  /** What to print when it is done. */
  summary: string[];
}

export interface AddRequest {
  title: string;
  description: string;
  criteria: readonly string[];
  priority?: number | undefined;
  insertAfter?: string | undefined;
  reason?: string | undefined;
}

export interface CorrectRequest {
  storyId: string;
  title?: string | undefined;
  description?: string | undefined;
  criteria?: readonly string[] | undefined;
  reason: string;
  /** Also reset passing stories that depend on this one. */
  resetDependents?: boolean | undefined;
}

export function usage(message: string, hint?: string): RalphError {
  return new RalphError('USAGE', message, hint === undefined ? {} : { hint });
}

export function requirePrdWithIds(files: AmendFiles): void {
  const { format, stories } = files.prd.taskList;
  if (!format.startsWith('prd') || stories.some((s) => !s.hasId)) {
    throw new RalphError(
      'INVALID_TASK_LIST',
      `${files.prd.file} is not a prd.json with story ids, so ralph cannot amend it`,
      {
        hint: 'amendments need a prd.json {"userStories": [{"id": "STORY-001", …}]} beside spec.md',
      },
    );
  }
}

/** Every story id in use or used before: prd.json, every definition in spec.md, descoped ones. */
export function usedStoryIds(files: AmendFiles, spec: Spec): Set<string> {
  const ids = new Set(files.prd.taskList.stories.map((s) => s.id));
  for (const block of storyBlocks(splitSpec(files.specText).lines)) ids.add(block.id);
  for (const story of spec.descoped) ids.add(story.storyId);
  return ids;
}

export function newAmendmentId(files: AmendFiles): string {
  return nextAmendmentId([files.specText, files.prd.text, files.progressText]);
}

export function findStory(files: AmendFiles, id: string): Story {
  const story = files.prd.taskList.stories.find((s) => s.id === id);
  if (story !== undefined) return story;
  const known = files.prd.taskList.stories.map((s) => s.id).join(', ');
  throw usage(`no active story ${id} in ${files.prd.file}`, `stories: ${known || '(none)'}`);
}

export function dependentsOf(files: AmendFiles, id: string): Story[] {
  return files.prd.taskList.stories.filter((s) => s.dependsOn.includes(id));
}

function describe(stories: readonly Story[]): string {
  return stories.map((s) => `${s.id} (passes: ${String(s.passes)})`).join(', ');
}

export function addStory(files: AmendFiles, request: AddRequest): AmendOutcome {
  requirePrdWithIds(files);
  const spec = parseSpec(files.specText, files.specFile);
  const stories = files.prd.taskList.stories;
  const used = usedStoryIds(files, spec);
  const after = request.insertAfter;
  if (after !== undefined) findStory(files, after);
  const id = after === undefined ? nextStoryId(used) : decimalIdAfter(after, used);
  if (id === undefined) throw usage(`--insert-after ${after ?? ''}: not an id like STORY-002`);
  const anchor = stories.find((s) => s.id === after);
  const highest = Math.max(0, ...stories.map((s) => s.priority ?? 0));
  // Inserted after a story: same priority, and the decimal id orders it right behind it.
  const priority = request.priority ?? anchor?.priority ?? highest + 1;
  const amd = newAmendmentId(files);
  const time = amendmentTime(files.now);
  const reason = request.reason ?? request.description;
  const warnings: string[] = [];
  // Ids are never renumbered: stories already inserted after the anchor stay before the new one.
  const between =
    after === undefined
      ? []
      : stories.filter((s) => compareStoryIds(s.id, after) > 0 && compareStoryIds(s.id, id) < 0);
  const placeAfter = [...between].sort((a, b) => compareStoryIds(a.id, b.id)).at(-1)?.id ?? after;
  if (between.length > 0) {
    warnings.push(
      `${between.map((s) => s.id).join(', ')} already follow ${after ?? ''}: ${id} comes after them`,
    );
  }
  if (stories.length > 0 && stories.every((s) => s.passes)) {
    warnings.push(
      `all ${String(stories.length)} stories pass: adding ${id} marks the feature incomplete, and it needs another \`ralph run\``,
    );
  }
  const story = { id, title: request.title, description: request.description };
  const criteria = [...request.criteria];
  const lines = splitSpec(files.specText);
  appendToSection(
    lines,
    'amendments',
    'Amendments',
    [
      ...amendmentHeader(amd, request.title, time, 'ADD', reason),
      '',
      ...renderStory({ ...story, acceptanceCriteria: criteria, priority }, 4),
    ],
    AMENDMENTS_SECTION,
  );
  const value: PlainJson = {
    ...story,
    acceptanceCriteria: criteria,
    priority,
    passes: false,
    notes: '',
    amendment: { id: amd, type: 'add', timestamp: time, reason },
  };
  const prdText = changePrd(files.prd, { insert: [{ after: placeAfter, value }] });
  const entry = progressEntry({
    id: amd,
    time,
    kind: 'ADD',
    command: files.command,
    heading: 'Added Stories:',
    items: [`${id}: ${request.title} (priority: ${String(priority)})`],
    reason,
    filesUpdated: [`spec.md: ${amd} in Amendments`, `prd.json: added ${id}`],
  });
  return {
    amendmentId: amd,
    specText: joinSpec(lines),
    prdText,
    progressEntry: entry,
    warnings,
    storyIds: [id],
    summary: [`${amd}: added ${id}: ${request.title} (priority ${String(priority)})`],
  };
}

export const AMENDMENTS_SECTION = {
  intro: '<!-- Written by `ralph amend`: change requirements through it, not by hand -->',
  beforeSection: 'descoped stories',
};

export function correctStory(files: AmendFiles, request: CorrectRequest): AmendOutcome {
  requirePrdWithIds(files);
  const story = findStory(files, request.storyId);
  const after = {
    title: request.title ?? story.title,
    description: request.description ?? story.description,
    criteria: request.criteria === undefined ? story.acceptanceCriteria : [...request.criteria],
  };
  const changes: FieldChange[] = [];
  const before: Record<string, JsonValue> = {};
  const afterJson: Record<string, JsonValue> = {};
  const note = (field: string, key: string, was: JsonValue, now: JsonValue, show: string[]) => {
    if (JSON.stringify(was) === JSON.stringify(now)) return;
    changes.push({ field, before: show[0] ?? '', after: show[1] ?? '' });
    before[key] = was;
    afterJson[key] = now;
  };
  note('Title', 'title', story.title, after.title, [story.title, after.title]);
  note('Description', 'description', story.description, after.description, [
    story.description,
    after.description,
  ]);
  note('Acceptance Criteria', 'acceptanceCriteria', story.acceptanceCriteria, after.criteria, [
    story.acceptanceCriteria.join('; '),
    after.criteria.join('; '),
  ]);
  if (changes.length === 0) {
    throw usage(
      `nothing to correct: the new values equal ${story.id}'s current ones`,
      'pass --title, --description or --criterion with the corrected text',
    );
  }
  const amd = newAmendmentId(files);
  const time = amendmentTime(files.now);
  const warnings: string[] = [];
  if (story.passes) {
    warnings.push(
      `${story.id} passes: the correction resets it to passes: false (it needs re-verification)`,
    );
  }
  const dependents = dependentsOf(files, story.id);
  const reset = request.resetDependents === true ? dependents.filter((s) => s.passes) : [];
  if (dependents.length > 0) {
    const what =
      reset.length > 0
        ? `reset to passes: false: ${reset.map((s) => s.id).join(', ')}`
        : 'pass --reset-dependents to reset the passing ones';
    warnings.push(
      `${story.id} is a dependency for ${describe(dependents)}; the correction may invalidate them (${what})`,
    );
  }
  const lines = splitSpec(files.specText);
  appendToSection(
    lines,
    'amendments',
    'Amendments',
    [
      ...amendmentHeader(amd, `${story.id} Correction`, time, 'CORRECT', request.reason, [
        `**Target:** ${story.id} - ${story.title}`,
      ]),
      '',
      ...changeTable(changes),
      '',
      `**Status Impact:** ${story.passes ? 'passes reset to false' : 'none (the story was not passing)'}`,
      '',
      ...renderStory(
        {
          id: story.id,
          title: after.title,
          description: after.description,
          acceptanceCriteria: after.criteria,
          priority: story.priority,
        },
        4,
      ),
    ],
    AMENDMENTS_SECTION,
  );
  const changesJson: Record<string, JsonValue> = {};
  for (const key of Object.keys(afterJson)) {
    changesJson[key] = { before: before[key] ?? null, after: afterJson[key] ?? null };
  }
  changesJson.passesReset = story.passes;
  const set: Record<string, JsonValue> = {
    ...afterJson,
    ...(story.passes ? { passes: false } : {}),
    amendment: {
      id: amd,
      type: 'correct',
      timestamp: time,
      reason: request.reason,
      changes: changesJson,
    },
  };
  const prdText = changePrd(files.prd, {
    set: [{ id: story.id, set }, ...reset.map((s) => ({ id: s.id, set: { passes: false } }))],
  });
  const entry = progressEntry({
    id: amd,
    time,
    kind: 'CORRECT',
    command: files.command,
    heading: 'Corrected Story:',
    items: [
      `${story.id}: ${after.title}`,
      `Changes: ${changes.map((c) => c.field).join(', ')}`,
      `Status Reset: ${story.passes ? 'yes' : 'no'}`,
      ...(reset.length > 0 ? [`Dependents Reset: ${reset.map((s) => s.id).join(', ')}`] : []),
    ],
    reason: request.reason,
    filesUpdated: [`spec.md: ${amd} in Amendments`, `prd.json: corrected ${story.id}`],
  });
  return {
    amendmentId: amd,
    specText: joinSpec(lines),
    prdText,
    progressEntry: entry,
    warnings,
    storyIds: [story.id],
    summary: [
      `${amd}: corrected ${story.id} (${changes.map((c) => c.field.toLowerCase()).join(', ')})`,
    ],
  };
}
