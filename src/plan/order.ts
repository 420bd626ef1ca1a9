import { compareParsedIds, parseStoryId } from './story-id.js';
import type { Story, TaskList } from './types.js';

/**
 * Which story the loop works on next: priority first (1 = highest; none = after every
 * numbered one), then id (so STORY-002.1, inserted at the end of the file, runs before
 * STORY-003), then file order.
 */

export function sortStories(stories: readonly Story[]): Story[] {
  // Comparing some ids and not others would not be a consistent order (a slug would tie with
  // both STORY-001 and STORY-002), so ids decide only when every id in the list has the shape.
  const ids = stories.map((story) => parseStoryId(story.id));
  const byId = ids.every((id) => id !== undefined);
  const keyed = stories.map((story, i) => ({ story, id: ids[i] }));
  keyed.sort((a, b) => {
    const priority = comparePriority(a.story.priority, b.story.priority);
    if (priority !== 0) return priority;
    if (byId && a.id !== undefined && b.id !== undefined) {
      const id = compareParsedIds(a.id, b.id);
      if (id !== 0) return id;
    }
    return a.story.index - b.story.index;
  });
  return keyed.map((entry) => entry.story);
}

function comparePriority(a: number | undefined, b: number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return 1;
  if (b === undefined) return -1;
  return a - b;
}

/** The first open story, in order, whose dependencies all pass; undefined when none is ready. */
export function nextStory(taskList: TaskList): Story | undefined {
  const passing = passingIds(taskList);
  return sortStories(taskList.stories).find((story) => isReady(story, passing));
}

export interface TaskListSummary {
  total: number;
  passing: number;
  next: Story | undefined;
  /** Open stories waiting on a dependency that does not pass (or does not exist), in order. */
  blocked: Story[];
  /** Open stories parked (`blocked` set: ralph gave up on them, or a person set it). */
  parked: Story[];
}

export function summarise(taskList: TaskList): TaskListSummary {
  const passing = passingIds(taskList);
  const ordered = sortStories(taskList.stories);
  return {
    total: taskList.stories.length,
    passing: taskList.stories.filter((story) => story.passes).length,
    next: ordered.find((story) => isReady(story, passing)),
    blocked: ordered.filter((story) => !story.passes && !dependenciesPass(story, passing)),
    parked: ordered.filter((story) => !story.passes && story.blocked !== undefined),
  };
}

function passingIds(taskList: TaskList): Set<string> {
  return new Set(taskList.stories.filter((story) => story.passes).map((story) => story.id));
}

function isReady(story: Story, passing: Set<string>): boolean {
  return !story.passes && story.blocked === undefined && dependenciesPass(story, passing);
}

/** A dependency on an id that does not exist never passes: a typo must not unblock a story. */
function dependenciesPass(story: Story, passing: Set<string>): boolean {
  return story.dependsOn.every((id) => passing.has(id));
}
