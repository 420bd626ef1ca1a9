import { parseTaskList, type TaskListDocument } from '../plan/read.js';
import { salvageAgentFields } from '../plan/salvage.js';
import type { Story } from '../plan/types.js';
import { updateStories, type StoryChange } from '../plan/write.js';
import { RalphError } from '../util/errors.js';

/**
 * The agent may change only `passes` and `notes` of stories. Anything else — invalid JSON,
 * removed, added or renamed stories, rewritten criteria, other fields — is undone: the snapshot
 * taken before the iteration comes back, with the agent's legitimate passes/notes changes
 * re-applied where the file could still be read.
 */

export type TaskListCheck =
  | { ok: true; after: TaskListDocument }
  | { ok: false; problems: string[]; restoredText: string; kept: string[] };

/**
 * Story fields the agent owns. `completed_iteration` is Ralph Loop v2's feature_list field that
 * its prompt tells the agent to set along with `passes`.
 */
const AGENT_FIELDS = ['passes', 'notes', 'completed_iteration'] as const;

/** Story fields that belong to the plan; the agent must leave them as they were. */
const PLAN_FIELDS = [
  'title',
  'description',
  'acceptanceCriteria',
  'priority',
  'dependsOn',
  'model',
  'mcpServers',
  // The checks that judge the story: an agent weakening them would judge its own work.
  'verify',
  'allowTestChanges',
  'blocked',
] as const;

export function checkTaskListChange(before: TaskListDocument, afterText: string): TaskListCheck {
  if (afterText === before.text) return { ok: true, after: before };
  let after: TaskListDocument;
  try {
    after = parseTaskList(afterText, before.file);
  } catch (error) {
    const why = error instanceof RalphError ? error.message.split('\n')[0] : String(error);
    // Torn mid-write or cut short: the passes and notes that are still whole are kept.
    const { changes, kept } = salvageAgentFields(before, afterText);
    return {
      ok: false,
      problems: [`left the task list unreadable: ${why}`],
      restoredText: changes.length === 0 ? before.text : updateStories(before, changes),
      kept,
    };
  }
  const problems = describeViolations(before, after);
  if (problems.length === 0) return { ok: true, after };

  const beforeIds = new Set(before.taskList.stories.map((story) => story.id));
  const changes: StoryChange[] = [];
  const kept: string[] = [];
  for (const story of after.taskList.stories) {
    if (!beforeIds.has(story.id)) continue;
    const old = before.taskList.stories.find((each) => each.id === story.id);
    if (old === undefined) continue;
    const change: StoryChange = { id: story.id };
    if (story.passes !== old.passes) {
      change.passes = story.passes;
      kept.push(`${story.id} passes: ${String(story.passes)}`);
    }
    if ((story.notes ?? '') !== (old.notes ?? '')) {
      change.notes = story.notes ?? '';
      kept.push(`${story.id} notes`);
    }
    if (change.passes !== undefined || change.notes !== undefined) changes.push(change);
  }
  return { ok: false, problems, restoredText: updateStories(before, changes), kept };
}

/**
 * The task list is no longer a file of its own (a symbolic or hard link, a FIFO): what it points
 * to is never read; the snapshot comes back as a regular file (the rename replaces the link).
 */
export function replacedTaskList(before: TaskListDocument, what: string): TaskListCheck {
  return {
    ok: false,
    problems: [`replaced the task list with ${what}`],
    restoredText: before.text,
    kept: [],
  };
}

function describeViolations(before: TaskListDocument, after: TaskListDocument): string[] {
  const problems: string[] = [];
  if (after.taskList.format !== before.taskList.format) {
    problems.push(
      `changed the task list's format from ${before.taskList.format} to ${after.taskList.format}`,
    );
  }
  const afterById = new Map(after.taskList.stories.map((story) => [story.id, story]));
  const beforeIds = new Set(before.taskList.stories.map((story) => story.id));
  for (const story of before.taskList.stories) {
    const now = afterById.get(story.id);
    if (now === undefined) {
      problems.push(`removed or renamed ${story.id}`);
      continue;
    }
    for (const field of PLAN_FIELDS) {
      if (!sameValue(story[field], now[field])) problems.push(`changed ${field} of ${story.id}`);
    }
  }
  for (const story of after.taskList.stories) {
    if (!beforeIds.has(story.id)) problems.push(`added ${story.id}`);
  }
  problems.push(...topLevelChanges(before, after));
  if (problems.length === 0 && !sameOutsidePassesAndNotes(before, after)) {
    problems.push('changed fields other than passes and notes');
  }
  return problems;
}

/** Fields beside the story list (description, project, branchName, …) the agent changed. */
function topLevelChanges(before: TaskListDocument, after: TaskListDocument): string[] {
  const [storiesKey] = before.storiesPath;
  const fields = (doc: TaskListDocument): Record<string, unknown> => {
    const value = doc.json.value;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  };
  const [old, now] = [fields(before), fields(after)];
  return [...new Set([...Object.keys(old), ...Object.keys(now)])]
    .filter((key) => key !== storiesKey && canonical(old[key]) !== canonical(now[key]))
    .map((key) =>
      key in now ? `changed ${key} of the task list` : `removed ${key} of the task list`,
    );
}

function sameValue(left: Story[keyof Story], right: Story[keyof Story]): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/**
 * The whole document, with every story's passes and notes blanked, must be unchanged (key order
 * and formatting do not matter): this catches edits to top-level fields and unknown story fields.
 */
function sameOutsidePassesAndNotes(before: TaskListDocument, after: TaskListDocument): boolean {
  return canonical(withoutAgentFields(before)) === canonical(withoutAgentFields(after));
}

function withoutAgentFields(doc: TaskListDocument): unknown {
  const copy = structuredClone(doc.json.value);
  let stories: unknown = copy;
  for (const key of doc.storiesPath) {
    stories = (stories as Record<string | number, unknown>)[key];
  }
  if (Array.isArray(stories)) {
    stories.forEach((story: unknown, index) => {
      if (story !== null && typeof story === 'object') {
        (stories as unknown[])[index] = Object.fromEntries(
          Object.entries(story).filter(
            ([key]) => !(AGENT_FIELDS as readonly string[]).includes(key),
          ),
        );
      }
    });
  }
  return copy;
}

function canonical(value: unknown): string {
  // Any fixed key order will do, as both sides use it. Code-unit order, not localeCompare: the
  // first localeCompare of a process loads ICU's collation (5-10 ms of every run's first iteration).
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : inner,
  );
}
