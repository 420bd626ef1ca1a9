import { describe, expect, it } from 'vitest';
import { parseJsonText } from './json-text.js';
import { locate, taskListError } from './task-list-errors.js';

describe('taskListError', () => {
  const json = parseJsonText('{\n  "a": [\n    1,\n    2\n  ]\n}', 'prd.json');

  it('points at the value, or at the nearest value that exists', () => {
    expect(locate(json, ['a', 1])).toEqual({ file: 'prd.json', line: 4, column: 5, field: 'a[1]' });
    expect(locate(json, ['a', 7, 'x'])).toMatchObject({ line: 2, column: 8 });
  });

  it('reports problems in file order, the first one as the location and hint', () => {
    const error = taskListError(json, [
      { path: ['a', 1], message: 'second', hint: 'fix two' },
      { path: ['a', 0], message: 'first', hint: 'fix one' },
    ]);
    expect(error.code).toBe('INVALID_TASK_LIST');
    expect(error.message).toBe(
      'prd.json: 2 problems in the task list:\n  prd.json:3:5: first (fix one)\n  prd.json:4:5: second (fix two)',
    );
    expect(error.location?.field).toBe('a[0]');
    expect(error.hint).toBe('fix one; ralph did not change the file');
  });

  it('shortens a long list', () => {
    const problems = Array.from({ length: 25 }, () => ({ path: ['a'], message: 'm', hint: 'h' }));
    const lines = taskListError(json, problems).message.split('\n');
    expect(lines).toHaveLength(22);
    expect(lines.at(-1)).toBe('  … and 5 more');
  });
});
