import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { escapeControlCharacters } from '../util/control-chars.js';
import { RalphError } from '../util/errors.js';
import { dependencyProblems } from './dependencies.js';
import { formatPath, type JsonPath } from './json-path.js';
import { parseJsonText, type ParsedJson } from './json-text.js';
import { storyIdProblem } from './story-id.js';
import { problemsFromIssues, taskListError, type TaskListProblem } from './task-list-errors.js';
import {
  featureListArraySchema,
  featureListObjectSchema,
  prdHybridSchema,
  prdSnarktankSchema,
  type PriorityWord,
  type TaskListItem,
} from './task-list-schemas.js';
import type { Story, TaskList, TaskListFormat } from './types.js';

/** A task list plus what the round-trip writer needs to change it without disturbing the rest. */
export interface TaskListDocument {
  file: string;
  text: string;
  taskList: TaskList;
  /** The scanned text: offsets of every value, indentation and newline style. */
  json: ParsedJson;
  /** Where the stories are: `['userStories']`, `['stories']`, `['features']` or `[]` (a bare array). */
  storiesPath: JsonPath;
}

/**
 * Reads and checks a task list. `unchanged`, a document read from the same file earlier, is
 * returned as it is when the file still holds its text: the loop reads the file before every
 * iteration (the person may have edited it), and a new parse and check of the same text cost
 * more than the read. The read is synchronous: a task list is small, and a trip through libuv's
 * thread pool for each of open, stat, read and close cost more than the reads themselves.
 */
export function readTaskListFile(
  path: string,
  unchanged?: TaskListDocument,
): Promise<TaskListDocument> {
  // A throw in the executor rejects the promise: callers see failures as before.
  return new Promise((resolve) => {
    resolve(readTaskList(path, unchanged));
  });
}

function readTaskList(path: string, unchanged: TaskListDocument | undefined): TaskListDocument {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) {
      throw new RalphError('TASK_LIST_NOT_FOUND', `no task list at ${path}`, {
        location: { file: path },
        hint: 'run `ralph init --missing` to write an example, or pass the loop directory that holds it',
        cause: error,
      });
    }
    throw new RalphError('IO', `cannot read the task list ${path}`, {
      location: { file: path },
      cause: error,
    });
  }
  const text = bytes.toString('utf8');
  if (unchanged?.file === path && unchanged.text === text) return unchanged;
  // Invalid bytes decode to U+FFFD; writing that text back would change bytes ralph never meant
  // to touch, so such a file is refused rather than silently repaired.
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(bytes)) {
    throw new RalphError('INVALID_TASK_LIST', `${path} is not valid UTF-8 text`, {
      location: { file: path },
      hint: 'save the task list as UTF-8; ralph did not change the file',
    });
  }
  return parseTaskList(text, path);
}

export function parseTaskList(text: string, file: string): TaskListDocument {
  const json = parseJsonText(text, file);
  const shape = detectShape(json);
  const { items, top } = validate(json, shape.format);
  const stories = items.map((item, index) => toStory(item, index));
  // Before anything quotes an id in a message: an unsafe id is reported escaped, never raw.
  const unsafe = unsafeIds(stories, shape.storiesPath);
  if (unsafe.length > 0) throw taskListError(json, unsafe);
  const duplicates = duplicateIds(stories, shape.storiesPath);
  if (duplicates.length > 0) throw taskListError(json, duplicates);
  const unmet = dependencyProblems(stories, shape.storiesPath, (story) =>
    items[story.index]?.dependsOn === undefined ? 'dependencies' : 'dependsOn',
  );
  if (unmet.length > 0) throw taskListError(json, unmet);
  const taskList: TaskList = {
    format: shape.format,
    name:
      textOf(top.project) ??
      textOf(top.name) ??
      textOf(top.task_name) ??
      textOf(top.projectName) ??
      textOf(fieldOf(top.meta, 'project')) ??
      textOf(fieldOf(top.feature, 'name')),
    description: textOf(top.description) ?? textOf(fieldOf(top.feature, 'description')),
    branchName: textOf(top.branchName),
    defaultModel: textOf(top.default_model),
    stories,
  };
  return { file, text, taskList, json, storiesPath: shape.storiesPath };
}

interface Shape {
  format: TaskListFormat;
  storiesPath: JsonPath;
}

/** By shape, not by file name: a prd.json can hold a bare feature array and vice versa. */
function detectShape(json: ParsedJson): Shape {
  const value = json.value;
  if (Array.isArray(value)) return { format: 'feature-list-array', storiesPath: [] };
  if (isRecord(value)) {
    const key = 'userStories' in value ? 'userStories' : 'stories' in value ? 'stories' : undefined;
    if (key !== undefined) {
      const snarktank =
        'project' in value || 'name' in value || 'branchName' in value || hasUsIds(value[key]);
      return { format: snarktank ? 'prd-snarktank' : 'prd-hybrid', storiesPath: [key] };
    }
    if ('features' in value) return { format: 'feature-list-object', storiesPath: ['features'] };
  }
  throw taskListError(json, [
    {
      path: [],
      message: 'has no userStories, stories or features array, so it is not a task list',
      hint: 'a prd.json is {"userStories": [ … ]}; a feature_list.json is {"features": [ … ]} or [ … ]',
    },
  ]);
}

function hasUsIds(items: unknown): boolean {
  return (
    Array.isArray(items) &&
    items.some((item) => isRecord(item) && typeof item.id === 'string' && /^US-\d/.test(item.id))
  );
}

interface Validated {
  items: TaskListItem[];
  top: Record<string, unknown>;
}

function validate(json: ParsedJson, format: TaskListFormat): Validated {
  switch (format) {
    case 'feature-list-array':
      return { items: check(json, featureListArraySchema), top: {} };
    case 'feature-list-object': {
      const data = check(json, featureListObjectSchema);
      return { items: data.features, top: data };
    }
    case 'prd-hybrid':
    case 'prd-snarktank': {
      const data = check(json, format === 'prd-hybrid' ? prdHybridSchema : prdSnarktankSchema);
      return { items: data.userStories ?? data.stories ?? [], top: data };
    }
  }
}

function check<T extends z.ZodType>(json: ParsedJson, schema: T): z.output<T> {
  const result = schema.safeParse(json.value);
  if (!result.success) throw taskListError(json, problemsFromIssues(json, result.error.issues));
  return result.data;
}

/** Memory tags as memories.md writes them: lower case, no `#`, no duplicates. */
function storyTags(tags: string | string[] | undefined): string[] {
  const split = [tags ?? []].flat().flatMap((tag) => tag.split(','));
  return [...new Set(split.map((tag) => tag.trim().replace(/^#/, '').toLowerCase()))].filter(
    (tag) => tag !== '',
  );
}

const PRIORITY_BY_WORD: Record<PriorityWord, number> = { critical: 0, high: 1, medium: 2, low: 3 };

function toStory(item: TaskListItem, index: number): Story {
  const id = item.id === undefined ? undefined : String(item.id);
  const amendment = item.amendment;
  return {
    index,
    id: id ?? `#${index + 1}`,
    hasId: id !== undefined,
    title: item.title ?? item.name ?? firstLine(item.description) ?? id ?? `#${index + 1}`,
    description: item.description ?? '',
    acceptanceCriteria: item.acceptanceCriteria ?? item.steps ?? [],
    priority: typeof item.priority === 'string' ? PRIORITY_BY_WORD[item.priority] : item.priority,
    passes: item.passes ?? false,
    notes: Array.isArray(item.notes) ? item.notes.join('\n') : (item.notes ?? undefined),
    dependsOn: item.dependsOn ?? item.dependencies ?? [],
    model: item.model,
    category: item.category,
    mcpServers: item.mcpServers,
    specRef: item.spec_ref,
    verify: item.verify === undefined ? [] : [item.verify].flat(),
    allowTestChanges: item.allowTestChanges ?? false,
    tags: storyTags(item.tags),
    blocked:
      item.blocked === true
        ? 'blocked'
        : typeof item.blocked === 'string' && item.blocked !== ''
          ? item.blocked
          : undefined,
    amendment:
      amendment === undefined
        ? undefined
        : {
            id: amendment.id,
            type: amendment.type,
            timestamp: amendment.timestamp,
            reason: amendment.reason,
          },
  };
}

function firstLine(text: string | undefined): string | undefined {
  const line = text?.split('\n', 1)[0]?.trim();
  return line === undefined || line === '' ? undefined : line;
}

function unsafeIds(stories: Story[], storiesPath: JsonPath): TaskListProblem[] {
  return stories.flatMap((story) => {
    const problem = story.hasId ? storyIdProblem(story.id) : undefined;
    if (problem === undefined) return [];
    const path = [...storiesPath, story.index, 'id'];
    return [
      {
        path,
        message: `${formatPath(path)} ${quoted(story.id)} ${problem}`,
        hint: 'story ids end up in file names and log lines: use letters, digits, "-", "_" and single dots, such as "STORY-002.1"',
      },
    ];
  });
}

function duplicateIds(stories: Story[], storiesPath: JsonPath): TaskListProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: TaskListProblem[] = [];
  for (const story of stories) {
    const earlier = firstIndex.get(story.id);
    if (earlier === undefined) {
      firstIndex.set(story.id, story.index);
      continue;
    }
    problems.push({
      path: [...storiesPath, story.index, 'id'],
      message: `duplicate story id ${JSON.stringify(story.id)}, already used by item ${earlier + 1}`,
      hint: 'give every story its own id, e.g. number the inserted one STORY-002.1',
    });
  }
  return problems;
}

/** JSON quoting escapes C0 controls; DEL, C1 and U+2028/9 need the rest. */
function quoted(text: string): string {
  return escapeControlCharacters(JSON.stringify(text));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldOf(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

/** Top-level names are informational, so an odd type there is ignored rather than refused. */
function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isErrnoCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}
