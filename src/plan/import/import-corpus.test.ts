import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { corpusFiles, corpusPath, describeCorpus } from '../../../test/corpus.js';
import { parseTaskList } from '../read.js';
import { importPlan } from './import-plan.js';

const NOW = new Date('2026-01-09T12:00:00Z');

interface OutStory {
  id: string;
  title: string;
  acceptanceCriteria: string[];
  priority: number;
  passes: boolean;
}

/**
 * Real task lists from public repositories (../shared/corpus/plans): ralph reads them as they
 * are, and `ralph import` must carry every story across — same ids where they have ids, same
 * passes — into a prd.json that validate accepts.
 */
describeCorpus('importPlan on the real JSON task lists of the corpus', () => {
  const files = corpusFiles('plans', '.json');

  it('has the files this test is about', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  for (const name of corpusFiles('plans', '.json')) {
    it(name, () => {
      const bytes = readFileSync(corpusPath('plans', name));
      const original = parseTaskList(bytes.toString('utf8'), name).taskList.stories;
      const result = importPlan(bytes, name, { now: NOW });
      const stories = parseTaskList(result.text, 'prd.json').taskList.stories;
      expect(stories).toHaveLength(original.length);
      expect(stories.map((story) => story.passes)).toEqual(original.map((story) => story.passes));
      const ids = original.filter((story) => story.hasId).map((story) => story.id);
      expect(stories.map((story) => story.id)).toEqual(expect.arrayContaining(ids));
    });
  }

  it('the spec.md of ralph-hybrid feature 21 gives the prd.json its planner wrote (ids, titles, priorities, criteria)', () => {
    const spec = readFileSync(
      new URL('../../../test/fixtures/import/hybrid-f21-sync-spec.md', import.meta.url),
    );
    const planned = JSON.parse(
      readFileSync(corpusPath('plans', 'hybrid-f21-sync.json'), 'utf8'),
    ) as {
      userStories: OutStory[];
    };
    const imported = JSON.parse(importPlan(spec, 'spec.md', { now: NOW }).text) as {
      userStories: OutStory[];
    };
    const shape = (stories: OutStory[]) =>
      stories.map((story) => [
        story.id,
        story.title,
        story.priority,
        story.acceptanceCriteria.length,
      ]);
    expect(shape(imported.userStories)).toEqual(shape(planned.userStories));
    // The planner dropped the backticks; the import keeps the text as written.
    expect(imported.userStories[0]?.acceptanceCriteria[0]?.replace(/`/g, '')).toBe(
      planned.userStories[0]?.acceptanceCriteria[0],
    );
  });

  // The same project's other specs and the prd.json files its planner made from them: the
  // planner reworded some criteria, so ids, titles, priorities and passes are compared.
  for (const [spec, prd, passing] of [
    ['hybrid-526-oauth-spec.md', 'hybrid-526-oauth.json', 3],
    ['hybrid-33-gsd-spec.md', 'hybrid-33-archived-complete.json', 23],
  ] as const) {
    it(`${spec} gives the stories of ${prd}`, () => {
      const text = readFileSync(new URL(`../../../test/fixtures/import/${spec}`, import.meta.url));
      const planned = JSON.parse(readFileSync(corpusPath('plans', prd), 'utf8')) as {
        userStories: OutStory[];
      };
      const imported = JSON.parse(importPlan(text, spec, { now: NOW }).text) as {
        userStories: OutStory[];
      };
      const shape = (stories: OutStory[]) =>
        stories.map((story) => [story.id, story.title, story.priority]);
      expect(shape(imported.userStories)).toEqual(shape(planned.userStories));
      // The spec's boxes are unchecked; the planner's file records the run's progress.
      expect(imported.userStories.filter((story) => story.passes)).toHaveLength(0);
      expect(planned.userStories.filter((story) => story.passes)).toHaveLength(passing);
    });
  }
});
