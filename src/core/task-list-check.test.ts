import { describe, expect, it } from 'vitest';
import { parseTaskList } from '../plan/read.js';
import { checkTaskListChange } from './task-list-check.js';

const text = (description: string, title: string, passes: boolean) =>
  `${JSON.stringify(
    {
      description,
      userStories: [{ id: 'STORY-001', title, acceptanceCriteria: ['a'], passes, notes: '' }],
    },
    null,
    2,
  )}\n`;

describe('checkTaskListChange', () => {
  const before = parseTaskList(text('the plan', 'First', false), 'prd.json');

  it('accepts passes and notes', () => {
    expect(checkTaskListChange(before, text('the plan', 'First', true)).ok).toBe(true);
  });

  it('names every change it undoes, a story field and a top-level field alike', () => {
    const check = checkTaskListChange(before, text('a new plan', 'Renamed', true));
    expect(check).toMatchObject({
      ok: false,
      problems: ['changed title of STORY-001', 'changed description of the task list'],
      kept: ['STORY-001 passes: true'],
    });
  });

  it('keeps the passes that are still readable in a task list the agent left torn', () => {
    const whole = text('the plan', 'First', true);
    const check = checkTaskListChange(before, whole.slice(0, whole.indexOf('"notes"')));
    expect(check).toMatchObject({ ok: false, kept: ['STORY-001 passes: true'] });
    if (check.ok) return;
    expect(check.problems[0]).toMatch(/^left the task list unreadable/);
    expect(check.restoredText).toBe(whole);
  });
});
