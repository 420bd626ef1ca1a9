import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextStory, sortStories, summarise } from './order.js';
import { parseTaskList } from './read.js';
import type { Story, TaskList } from './types.js';

const corpus = resolve(process.cwd(), '../shared/corpus/plans');
const read = (name: string): TaskList =>
  parseTaskList(readFileSync(join(corpus, name), 'utf8'), name).taskList;

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
  it('puts decimal ids in id order when there are no priorities (hybrid-decimal-ids-unsorted)', () => {
    const { stories } = read('hybrid-decimal-ids-unsorted.json');
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

  it('puts critical before high in mathweb-feature-list.json', () => {
    const sorted = sortStories(read('mathweb-feature-list.json').stories);
    expect(sorted[0]!.priority).toBe(0);
    expect(sorted.map((s) => s.priority)).toEqual(
      [...sorted.map((s) => s.priority)].sort((a, b) => (a ?? 9) - (b ?? 9)),
    );
  });
});

describe('nextStory on the corpus', () => {
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

  it('picks the first open item of a list without ids, in file order', () => {
    const taskList = read('magic-tower-feature-list-late.json');
    const firstOpen = taskList.stories.find((s) => !s.passes);
    expect(nextStory(taskList)).toBe(firstOpen);
  });

  it('holds CONFLICT-004 back until all three of its dependencies pass', () => {
    const taskList = read('ralph-tui-conflict-prd.json');
    const pass = (...passing: string[]) =>
      list(taskList.stories.map((s) => ({ ...s, passes: passing.includes(s.id) })));
    expect(nextStory(pass('CONFLICT-001', 'CONFLICT-002'))?.id).toBe('CONFLICT-003');
    expect(summarise(pass('CONFLICT-001', 'CONFLICT-002')).blocked.map((s) => s.id)).toEqual([
      'CONFLICT-004',
    ]);
    expect(nextStory(pass('CONFLICT-001', 'CONFLICT-002', 'CONFLICT-003'))?.id).toBe(
      'CONFLICT-004',
    );
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
  it('counts hybrid-33-midrun.json', () => {
    const summary = summarise(read('hybrid-33-midrun.json'));
    expect(summary).toMatchObject({ total: 23, passing: 12, blocked: [] });
    expect(summary.next?.passes).toBe(false);
  });

  it('reports a finished list as having no next story', () => {
    expect(summarise(read('hybrid-33-archived-complete.json'))).toEqual({
      total: 23,
      passing: 23,
      next: undefined,
      blocked: [],
    });
  });

  it('lists blocked stories in order (ralph-tui-test-prd.json)', () => {
    const summary = summarise(read('ralph-tui-test-prd.json'));
    expect(summary.next?.id).toBe('TEST-001');
    expect(ids(summary.blocked)).toEqual(['TEST-004', 'TEST-005']);
  });
});
