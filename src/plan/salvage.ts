import { parsePartialJson } from './partial-json.js';
import type { TaskListDocument } from './read.js';
import type { StoryChange } from './write.js';

/**
 * The agent's passes and notes that can still be read from a task list it left unreadable (torn
 * by a kill mid-write, or cut short), as changes to `before`, the task list as it was before the
 * iteration. Stories are matched by id; items of formats without ids, by position and description.
 * Only whole values count (partial-json.ts): a `passes` whose value was cut off is not a claim.
 */
export function salvageAgentFields(
  before: TaskListDocument,
  text: string,
): { changes: StoryChange[]; kept: string[] } {
  let stories = parsePartialJson(text);
  for (const key of before.storiesPath) {
    stories = isRecord(stories) || Array.isArray(stories) ? (stories as never)[key] : undefined;
  }
  const changes: StoryChange[] = [];
  const kept: string[] = [];
  if (!Array.isArray(stories)) return { changes, kept };
  stories.forEach((item: unknown, index) => {
    if (!isRecord(item)) return;
    const old =
      typeof item.id === 'string'
        ? before.taskList.stories.find((story) => story.hasId && story.id === item.id)
        : before.taskList.stories.find(
            (story) =>
              !story.hasId && story.index === index && story.description === item.description,
          );
    if (old === undefined) return;
    const change: StoryChange = { id: old.id };
    if (typeof item.passes === 'boolean' && item.passes !== old.passes) {
      change.passes = item.passes;
      kept.push(`${old.id} passes: ${String(item.passes)}`);
    }
    if (typeof item.notes === 'string' && item.notes !== (old.notes ?? '')) {
      change.notes = item.notes;
      kept.push(`${old.id} notes`);
    }
    if (change.passes !== undefined || change.notes !== undefined) changes.push(change);
  });
  return { changes, kept };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
