import { RalphError } from '../util/errors.js';
import { changePrd } from './amend-prd.js';
import type { PlainJson } from './json-array-edit.js';
import type { TaskListDocument } from './read.js';
import { parseSpec, type Spec, type SpecStory } from './spec.js';
import { normaliseCriterion } from './spec-sync.js';
import { splitSpec, storyBlocks, storyDescription, storyPriority } from './spec-text.js';
import type { Story } from './types.js';
import type { JsonValue, StoryEdit } from './write.js';

/**
 * `ralph sync`: prd.json from spec.md, as the Ralph Hybrid spec's source-of-truth rule says.
 * Stories written in spec.md are added; a changed title or changed criteria are taken over (a
 * passing story whose criteria changed is reset, because what it passed is no longer the
 * requirement); passes and notes of unchanged stories are kept; a story prd.json has and spec.md
 * does not (an orphan) goes only when the person confirms it, since it may be finished work.
 */

export interface SyncOutcome {
  text: string;
  /** One line per change made. */
  changes: string[];
  warnings: string[];
  /** Orphans left in place because removal was not confirmed. */
  keptOrphans: string[];
}

export interface SyncRequest {
  confirmOrphanRemoval?: boolean | undefined;
}

const same = (a: string, b: string): boolean =>
  a.replace(/\s+/g, ' ').trim().toLowerCase() === b.replace(/\s+/g, ' ').trim().toLowerCase();

export function sameCriteria(a: readonly string[], b: readonly string[]): boolean {
  return (
    a.length === b.length &&
    a.every((c, i) => normaliseCriterion(c) === normaliseCriterion(b[i] ?? ''))
  );
}

/** Refuses a spec.md whose stories cannot be told apart (a story defined twice, for instance). */
export function readSpecForSync(specText: string, specFile: string): Spec {
  const spec = parseSpec(specText, specFile);
  const errors = spec.anomalies.filter((a) => a.severity === 'error');
  const first = errors[0];
  if (first !== undefined) {
    throw new RalphError('INVALID_TASK_LIST', `${specFile}: ${first.message}`, {
      ...(first.location === undefined ? {} : { location: first.location }),
      hint: 'fix spec.md first; ralph did not change any file',
    });
  }
  return spec;
}

interface SpecStoryFacts {
  description: string;
  priority: number | undefined;
}

function factsOf(specText: string, story: SpecStory): SpecStoryFacts {
  const { lines } = splitSpec(specText);
  const block = storyBlocks(lines).find((b) => b.start + 1 === story.line);
  if (block === undefined) return { description: '', priority: undefined };
  return { description: storyDescription(lines, block), priority: storyPriority(lines, block) };
}

export function newStoryJson(story: SpecStory, facts: SpecStoryFacts, priority: number): PlainJson {
  return {
    id: story.id,
    title: story.title,
    description: facts.description,
    acceptanceCriteria: [...story.acceptanceCriteria],
    priority,
    passes: false,
    notes: '',
  };
}

export function syncPrdFromSpec(
  specText: string,
  specFile: string,
  doc: TaskListDocument,
  request: SyncRequest = {},
): SyncOutcome {
  const spec = readSpecForSync(specText, specFile);
  const stories = doc.taskList.stories;
  const byId = new Map(stories.map((s) => [s.id, s]));
  const specIds = new Set(spec.stories.map((s) => s.id));
  const changes: string[] = [];
  const warnings: string[] = [];
  const set: StoryEdit[] = [];
  const insert: { after: string | null; value: PlainJson }[] = [];
  let highest = Math.max(0, ...stories.map((s) => s.priority ?? 0));
  let previous: Story | undefined;

  for (const specStory of spec.stories) {
    const story = byId.get(specStory.id);
    if (story?.amendment?.type === 'remove') continue;
    if (story === undefined) {
      const facts = factsOf(specText, specStory);
      const priority = facts.priority ?? previous?.priority ?? (highest += 1);
      // Right after the story spec.md lists before it (new ones in a row keep their order).
      insert.push({ after: previous?.id ?? null, value: newStoryJson(specStory, facts, priority) });
      changes.push(`added ${specStory.id}: ${specStory.title}`);
      continue;
    }
    previous = story;
    const fields: Record<string, JsonValue> = {};
    if (!same(story.title, specStory.title) && specStory.title !== '') {
      fields.title = specStory.title;
      changes.push(`${story.id}: title "${story.title}" → "${specStory.title}"`);
    }
    if (!sameCriteria(story.acceptanceCriteria, specStory.acceptanceCriteria)) {
      fields.acceptanceCriteria = [...specStory.acceptanceCriteria];
      changes.push(`${story.id}: acceptance criteria updated`);
      if (story.passes) {
        fields.passes = false;
        warnings.push(`${story.id}'s acceptance criteria changed: passes reset to false`);
      }
    }
    if (Object.keys(fields).length > 0) set.push({ id: story.id, set: fields });
  }

  const orphans = stories.filter((s) => !specIds.has(s.id) && s.amendment?.type !== 'remove');
  const removing = request.confirmOrphanRemoval === true ? orphans : [];
  const keptOrphans = request.confirmOrphanRemoval === true ? [] : orphans.map((s) => s.id);
  for (const orphan of orphans) {
    const status = orphan.passes ? 'passes: true, COMPLETED WORK' : 'passes: false';
    if (removing.includes(orphan)) changes.push(`removed orphan ${orphan.id} (${status})`);
    else warnings.push(`${orphan.id} is in prd.json but not in spec.md (${status}); kept`);
  }
  if (keptOrphans.length > 0) {
    warnings.push(
      'add the orphans to spec.md to keep them, or run `ralph sync --confirm-orphan-removal` to remove them',
    );
  }
  const gone = new Set(removing.map((s) => s.id));
  for (const story of stories) {
    if (gone.has(story.id) || !story.dependsOn.some((d) => gone.has(d))) continue;
    const key = dependencyKeyOf(doc, story);
    const entry = set.find((e) => e.id === story.id);
    const kept = story.dependsOn.filter((d) => !gone.has(d));
    if (entry === undefined) set.push({ id: story.id, set: { [key]: kept } });
    else entry.set[key] = kept;
    warnings.push(`${story.id} depended on a removed orphan; that dependency is dropped`);
  }
  const text =
    set.length + insert.length + gone.size === 0
      ? doc.text
      : changePrd(doc, { set, insert, remove: [...gone] });
  return { text, changes, warnings, keptOrphans };
}

function dependencyKeyOf(doc: TaskListDocument, story: Story): string {
  const raw = (doc.json.value as Record<string, unknown>)[String(doc.storiesPath[0])];
  const item = Array.isArray(raw) ? (raw[story.index] as Record<string, unknown>) : {};
  return item.dependsOn === undefined && item.dependencies !== undefined
    ? 'dependencies'
    : 'dependsOn';
}

/** A new prd.json for a spec.md that has none. */
export function prdFromSpec(specText: string, specFile: string, now: Date): SyncOutcome {
  const spec = readSpecForSync(specText, specFile);
  let priority = 0;
  const userStories = spec.stories.map((story) => {
    const facts = factsOf(specText, story);
    priority = facts.priority ?? priority + 1;
    return newStoryJson(story, facts, priority);
  });
  const prd = {
    description: spec.title ?? 'Feature',
    createdAt: spec.created ?? now.toISOString(),
    userStories,
  };
  return {
    text: `${JSON.stringify(prd, null, 2)}\n`,
    changes: spec.stories.map((s) => `added ${s.id}: ${s.title}`),
    warnings: [],
    keptOrphans: [],
  };
}
