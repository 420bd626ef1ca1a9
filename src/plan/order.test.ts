import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusPath, describeCorpus } from '../../test/corpus.js';
import { nextStory, sortStories, summarise } from './order.js';
import { parseTaskList } from './read.js';
import type { Story, TaskList } from './types.js';

const read = (name: string): TaskList =>
  parseTaskList(readFileSync(corpusPath('plans', name), 'utf8'), name).taskList;

function story(index: number, id: string, fields: Partial<Story> = {}): Story {
  return {
    index,
    id,
    hasId: true,
    title: id,
    description: '',
    acceptanceCriteria: [],
    priority: undefined,
    passes: false,
    notes: undefined,
    dependsOn: [],
    model: undefined,
    category: undefined,
    mcpServers: undefined,
    specRef: undefined,
    amendment: undefined,
    ...fields,
  };
}

function list(stories: Story[]): TaskList {
  const base = { name: undefined, description: undefined, branchName: undefined };
  return { format: 'prd-hybrid', ...base, defaultModel: undefined, stories };
}

const ids = (stories: readonly Story[]) => stories.map((s) => s.id);

describe('sortStories', () => {
  it('puts decimal ids in id order when there are no priorities', () => {
    const stories = ['STORY-002.1', 'STORY-003', 'STORY-001', 'STORY-002'].map((id, i) =>
      story(i, id),
    );
    expect(ids(sortStories(stories))).toEqual([
      'STORY-001',
      'STORY-002',
      'STORY-002.1',
      'STORY-003',
    ]);
  });

  it('orders by priority, then id, then file position; no priority goes last', () => {
    const stories = [
      story(0, 'S-3', { priority: 2 }),
      story(1, 'S-9'),
      story(2, 'S-2', { priority: 2 }),
      story(3, 'S-1', { priority: 1 }),
      story(4, 'S-0'),
    ];
    expect(ids(sortStories(stories))).toEqual(['S-1', 'S-2', 'S-3', 'S-0', 'S-9']);
  });

  it('keeps file order for slugs, and for every id when slugs and shaped ids mix', () => {
    const slugs = [story(0, 'robustness'), story(1, 'docs'), story(2, 'cli-ux')];
    expect(ids(sortStories(slugs))).toEqual(['robustness', 'docs', 'cli-ux']);
    const mixed = [story(0, 'S-2'), story(1, 'docs'), story(2, 'S-1')];
    expect(ids(sortStories(mixed))).toEqual(['S-2', 'docs', 'S-1']);
  });

  it('does not change the list it is given', () => {
    const stories = [story(0, 'S-2'), story(1, 'S-1')];
    sortStories(stories);
    expect(ids(stories)).toEqual(['S-2', 'S-1']);
  });

  it('puts critical before high, high before medium and low (word priorities)', () => {
    const words = ['low', 'high', 'critical', 'medium', 'high'];
    const text = JSON.stringify(words.map((priority, i) => ({ description: `f${i}`, priority })));
    const sorted = sortStories(parseTaskList(text, 'feature_list.json').taskList.stories);
    expect(sorted.map((s) => s.priority)).toEqual([0, 1, 1, 2, 3]);
    expect(ids(sorted)).toEqual(['#3', '#2', '#5', '#4', '#1']);
  });
});

describeCorpus('nextStory and summarise on the corpus', () => {
  it.each([
    ['hybrid-decimal-ids-unsorted.json', 'STORY-001'],
    ['hybrid-decimal-ids-current.json', 'STORY-002.1'],
    ['mini-jwt-feature-list.json', 'F033'],
    ['ralph-tui-conflict-prd.json', 'CONFLICT-001'],
    ['ralph-tui-sample-prd.json', 'US-001'],
    ['snarktank-prd-example.json', 'US-001'],
    ['mathweb-feature-list.json', '#1'],
    ['hybrid-33-archived-complete.json', undefined],
    ['hybrid-f21-sync.json', undefined],
    ['fleet-e2e-toy-features.json', undefined],
  ])('%s → %s', (name, id) => {
    expect(nextStory(read(name))?.id).toBe(id);
  });

  it('picks the first open item of a list without ids (magic-tower-feature-list-late.json)', () => {
    const taskList = read('magic-tower-feature-list-late.json');
    const firstOpen = taskList.stories.find((s) => !s.passes);
    expect(nextStory(taskList)).toBe(firstOpen);
  });

  it('counts hybrid-33-midrun.json and ralph-tui-test-prd.json', () => {
    const summary = summarise(read('hybrid-33-midrun.json'));
    expect(summary).toMatchObject({ total: 23, passing: 12, blocked: [] });
    expect(summary.next?.passes).toBe(false);
    const blocked = summarise(read('ralph-tui-test-prd.json'));
    expect(blocked.next?.id).toBe('TEST-001');
    expect(ids(blocked.blocked)).toEqual(['TEST-004', 'TEST-005']);
  });

  it('sorts mathweb-feature-list.json with critical first', () => {
    const sorted = sortStories(read('mathweb-feature-list.json').stories);
    expect(sorted[0]!.priority).toBe(0);
    expect(sorted.map((s) => s.priority)).toEqual(
      [...sorted.map((s) => s.priority)].sort((a, b) => (a ?? 9) - (b ?? 9)),
    );
  });
});

/** Four stories: 004 depends on the other three (the shape of ralph-tui's conflict example). */
const conflict = (...passing: string[]): TaskList =>
  list(
    ['C-001', 'C-002', 'C-003', 'C-004'].map((id, index) =>
      story(index, id, {
        priority: index + 1,
        passes: passing.includes(id),
        dependsOn: id === 'C-004' ? ['C-001', 'C-002', 'C-003'] : [],
      }),
    ),
  );

describe('nextStory', () => {
  it('picks the first open story in order, none when all pass', () => {
    expect(nextStory(conflict())?.id).toBe('C-001');
    expect(nextStory(conflict('C-001', 'C-002', 'C-003', 'C-004'))).toBeUndefined();
  });

  it('picks the first open item of a list without ids, in file order', () => {
    const items = [true, false, false].map((passes, i) => ({ description: `item ${i}`, passes }));
    const taskList = parseTaskList(JSON.stringify(items), 'feature_list.json').taskList;
    expect(nextStory(taskList)?.id).toBe('#2');
    expect(nextStory(taskList)).toBe(taskList.stories[1]);
  });

  it('holds a story back until all three of its dependencies pass', () => {
    expect(nextStory(conflict('C-001', 'C-002'))?.id).toBe('C-003');
    expect(ids(summarise(conflict('C-001', 'C-002')).blocked)).toEqual(['C-004']);
    expect(nextStory(conflict('C-001', 'C-002', 'C-003'))?.id).toBe('C-004');
  });

  it('treats a dependency on a missing id as not passing', () => {
    const taskList = list([
      story(0, 'A', { dependsOn: ['A-typo'] }),
      story(1, 'B', { passes: true }),
    ]);
    expect(nextStory(taskList)).toBeUndefined();
    expect(summarise(taskList)).toMatchObject({ total: 2, passing: 1, next: undefined });
    expect(ids(summarise(taskList).blocked)).toEqual(['A']);
  });
});

describe('summarise', () => {
  it('counts a list half done', () => {
    const summary = summarise(conflict('C-001', 'C-003'));
    expect(summary).toMatchObject({ total: 4, passing: 2 });
    expect(summary.next?.id).toBe('C-002');
    expect(ids(summary.blocked)).toEqual(['C-004']);
  });

  it('reports a finished list as having no next story', () => {
    expect(summarise(conflict('C-001', 'C-002', 'C-003', 'C-004'))).toEqual({
      total: 4,
      passing: 4,
      next: undefined,
      blocked: [],
      parked: [],
    });
  });

  it('skips parked stories and lists them', () => {
    const taskList = list([story(0, 'T-1', { blocked: 'parked by ralph' }), story(1, 'T-2')]);
    expect(nextStory(taskList)?.id).toBe('T-2');
    expect(summarise(taskList).parked.map((each) => each.id)).toEqual(['T-1']);
  });

  it('lists blocked stories in order', () => {
    const taskList = list([
      story(0, 'T-1'),
      story(1, 'T-2', { dependsOn: ['T-1'] }),
      story(2, 'T-3', { dependsOn: ['T-2'] }),
    ]);
    const summary = summarise(taskList);
    expect(summary.next?.id).toBe('T-1');
    expect(ids(summary.blocked)).toEqual(['T-2', 'T-3']);
  });
});
