import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTaskList } from './read.js';
import { parseSpec } from './spec.js';
import { placeholderFields, TEMPLATE_EXAMPLE_TEXTS } from './placeholders.js';

const template = (name: string): string =>
  readFileSync(new URL(`../../templates/${name}`, import.meta.url), 'utf8')
    .replaceAll('{{feature}}', 'feature-x')
    .replaceAll('{{createdAt}}', '2026-01-09T00:00:00Z');

describe('placeholderFields', () => {
  it("finds every example text of templates/prd.json, in every story's title, description and criteria", () => {
    const stories = parseTaskList(template('prd.json'), 'prd.json').taskList.stories;
    const fields = stories.flatMap((story) => placeholderFields(story));
    // Every story field of the template is example text, and the list knows each of them.
    const expected = stories.flatMap((story) => [
      story.title,
      story.description,
      ...story.acceptanceCriteria.filter(
        (each) => !/^(?:Typecheck|Unit tests) pass(?:es)?$/.test(each),
      ),
    ]);
    for (const text of expected) expect(TEMPLATE_EXAMPLE_TEXTS).toContain(text);
    expect(fields).toHaveLength(expected.length);
  });

  it('finds the example stories of templates/spec.md', () => {
    const spec = parseSpec(template('spec.md'), 'spec.md');
    expect(spec.stories.map((story) => placeholderFields(story)[0])).toEqual([
      'title "Replace this example story"',
      'title "Replace this second example story"',
    ]);
  });

  it('finds template slots of other planners, and nothing in a planned story', () => {
    expect(
      placeholderFields({
        id: 'STORY-001',
        title: '{Story Title}',
        acceptanceCriteria: ['[criterion]'],
      }),
    ).toEqual(['title "{Story Title}"', 'criterion "[criterion]"']);
    expect(
      placeholderFields({
        id: 'STORY-001',
        title: 'Export rows as CSV',
        description: 'As a user I want a CSV of what I see',
        acceptanceCriteria: ['Typecheck passes', 'Describe the header row in the docs'],
      }),
    ).toEqual([]);
  });
});
