import { describe, expect, it } from 'vitest';
import { parsePartialJson } from './partial-json.js';
import { parseTaskList } from './read.js';
import { salvageAgentFields } from './salvage.js';

const prd = (passes: boolean[], notes = '') =>
  `${JSON.stringify(
    {
      description: 'plan',
      userStories: passes.map((each, index) => ({
        id: `STORY-00${index + 1}`,
        title: `Story ${index + 1}`,
        acceptanceCriteria: ['works'],
        passes: each,
        notes,
      })),
    },
    null,
    2,
  )}\n`;

describe('parsePartialJson', () => {
  it('keeps the whole values of a cut text and drops the one that was cut', () => {
    expect(parsePartialJson('{"a": [1, 2, {"b": true, "c": "ha')).toEqual({
      a: [1, 2, { b: true }],
    });
    expect(parsePartialJson('{"a": 12')).toEqual({});
    expect(parsePartialJson('{"a": tr')).toEqual({});
    expect(parsePartialJson('')).toBeUndefined();
  });

  it('reads the first value and ignores an old tail after it', () => {
    expect(parsePartialJson('{"a": "x\\"y"}\n  "old": tail}')).toEqual({ a: 'x"y' });
  });
});

describe('salvageAgentFields', () => {
  const before = parseTaskList(prd([false, false, false]), 'prd.json');

  it('keeps the passes and notes that are whole in a torn rewrite', () => {
    const whole = prd([true, true, false], 'done');
    // Cut inside STORY-002's notes: its passes came before and stand, its notes do not.
    const torn = whole.slice(0, whole.indexOf('"done"', whole.indexOf('STORY-002')) + 3);
    expect(salvageAgentFields(before, torn)).toEqual({
      changes: [
        { id: 'STORY-001', passes: true, notes: 'done' },
        { id: 'STORY-002', passes: true },
      ],
      kept: ['STORY-001 passes: true', 'STORY-001 notes', 'STORY-002 passes: true'],
    });
  });

  it('keeps nothing from a text with no story left in it', () => {
    expect(salvageAgentFields(before, '{"descr')).toEqual({ changes: [], kept: [] });
    expect(salvageAgentFields(before, '')).toEqual({ changes: [], kept: [] });
  });

  it('matches items without ids by position and description', () => {
    const list = (passes: boolean) =>
      JSON.stringify([{ category: 'x', description: 'one', steps: ['s'], passes }]);
    const array = parseTaskList(list(false), 'feature_list.json');
    const torn = list(true).slice(0, -2);
    expect(salvageAgentFields(array, torn).kept).toEqual(['#1 passes: true']);
  });
});
