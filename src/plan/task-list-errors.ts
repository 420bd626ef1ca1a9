import type { z } from 'zod';
import { RalphError, type SourceLocation } from '../util/errors.js';
import { positionAt } from './json-position.js';
import { formatPath, nearestNode, nodeAt, type JsonPath } from './json-path.js';
import type { ParsedJson } from './json-text.js';

/**
 * Turns schema issues into one INVALID_TASK_LIST error that points at the line and column of
 * each bad value and says what to write instead: the person fixing the file should not need to
 * know zod or our formats.
 */

export interface TaskListProblem {
  path: JsonPath;
  message: string;
  hint: string;
}

interface Expectation {
  expected: string;
  hint: string;
}

const STRING_LIST: Expectation = {
  expected: 'an array of strings',
  hint: 'write a list of strings in double quotes, e.g. ["first", "second"]',
};

const TEXT: Expectation = { expected: 'a string', hint: 'put the text in double quotes' };

// A Map, not an object literal: field names from a file must never hit Object.prototype.
const FIELDS = new Map<string, Expectation>(
  Object.entries({
    passes: { expected: 'true or false', hint: 'use true or false without quotes' },
    priority: {
      expected: 'a number (1 = highest) or "high", "medium" or "low"',
      hint: 'write a number such as 1 (1 = highest), or one of "high", "medium", "low"',
    },
    id: {
      expected: 'a non-empty string',
      hint: 'give each story a unique id in double quotes, such as "STORY-001"',
    },
    acceptanceCriteria: STRING_LIST,
    steps: STRING_LIST,
    dependsOn: { ...STRING_LIST, hint: 'list the ids of other stories, e.g. ["STORY-001"]' },
    dependencies: { ...STRING_LIST, hint: 'list the ids of other stories, e.g. ["STORY-001"]' },
    mcpServers: { ...STRING_LIST, hint: 'list MCP server names, or [] for none' },
    notes: { expected: 'a string or an array of strings', hint: 'put the notes in double quotes' },
    type: {
      expected: '"add", "correct" or "remove"',
      hint: 'use one of "add", "correct", "remove"',
    },
    completed_iteration: { expected: 'a number or null', hint: 'write the iteration number' },
    amendment: { expected: 'an object', hint: 'write {"id": "AMD-001", "type": "add", …}' },
    userStories: { expected: 'an array of stories', hint: 'write "userStories": [ {…}, {…} ]' },
    stories: { expected: 'an array of stories', hint: 'write "stories": [ {…}, {…} ]' },
    features: { expected: 'an array of features', hint: 'write "features": [ {…}, {…} ]' },
  }),
);

const ITEM: Expectation = {
  expected: 'an object',
  hint: 'each story is an object such as {"id": "STORY-001", "title": "…", "passes": false}',
};

const STORY_LISTS = new Set(['userStories', 'stories', 'features']);
const MAX_LISTED = 20;

export function problemsFromIssues(
  json: ParsedJson,
  issues: z.core.$ZodIssue[],
): TaskListProblem[] {
  return issues.map((issue) => {
    const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
    const expectation = expectationFor(path);
    const field = formatPath(path);
    if (expectation === undefined) {
      return { path, message: `${field}: ${issue.message}`, hint: 'correct the value' };
    }
    const node = nodeAt(json.root, path);
    const problem =
      node === undefined
        ? `is missing; expected ${expectation.expected}`
        : `must be ${expectation.expected}, not ${describeReceived(json.text.slice(node.start, node.end), node.kind)}`;
    return { path, message: `${field} ${problem}`, hint: expectation.hint };
  });
}

function expectationFor(path: JsonPath): Expectation | undefined {
  const last = path.at(-1);
  const parent = path.at(-2);
  if (typeof last === 'number') {
    // A story in the story list, or an element of a list of strings (acceptanceCriteria[1]).
    if (path.length === 1 || STORY_LISTS.has(String(parent))) return ITEM;
    const list = typeof parent === 'string' ? FIELDS.get(parent) : undefined;
    return list === undefined ? undefined : { expected: 'a string', hint: list.hint };
  }
  if (last === undefined) return undefined;
  return FIELDS.get(last) ?? (isTextField(last) ? TEXT : undefined);
}

function isTextField(name: string): boolean {
  return [
    'title',
    'name',
    'description',
    'model',
    'category',
    'spec_ref',
    'project',
    'branchName',
    'createdAt',
    'task_name',
    'default_model',
    'timestamp',
    'reason',
  ].includes(name);
}

function describeReceived(source: string, kind: string): string {
  const shown = source.length > 40 ? `${source.slice(0, 37)}…` : source;
  switch (kind) {
    case 'string':
      return `the string ${shown}`;
    case 'number':
      return `the number ${shown}`;
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    default:
      return shown;
  }
}

/** One error for all problems: the first one's location and hint, every one listed. */
export function taskListError(json: ParsedJson, unordered: TaskListProblem[]): RalphError {
  // In file order, so the first one reported is the first one a reader meets.
  const problems = [...unordered].sort(
    (a, b) => nearestNode(json.root, a.path).start - nearestNode(json.root, b.path).start,
  );
  const [first] = problems;
  if (first === undefined) throw new Error('taskListError needs at least one problem');
  const options = {
    location: locate(json, first.path),
    hint: `${first.hint}; ralph did not change the file`,
  };
  if (problems.length === 1) {
    return new RalphError(
      'INVALID_TASK_LIST',
      `${where(json, first.path)}: ${first.message}`,
      options,
    );
  }
  const lines = problems
    .slice(0, MAX_LISTED)
    .map((problem) => `${where(json, problem.path)}: ${problem.message} (${problem.hint})`);
  if (problems.length > MAX_LISTED) lines.push(`… and ${problems.length - MAX_LISTED} more`);
  const heading = `${json.file}: ${problems.length} problems in the task list:`;
  return new RalphError('INVALID_TASK_LIST', [heading, ...lines].join('\n  '), options);
}

function where(json: ParsedJson, path: JsonPath): string {
  const { file, line, column } = locate(json, path);
  return `${file}:${line ?? 1}:${column ?? 1}`;
}

/** The line and column of the value at `path`, or of the nearest enclosing value that exists. */
export function locate(json: ParsedJson, path: JsonPath): SourceLocation {
  const node = nearestNode(json.root, path);
  const { line, column } = positionAt(json.text, node.start);
  return { file: json.file, line, column, field: formatPath(path) };
}
