/**
 * The example text `ralph init` writes (templates/prd.json, templates/spec.md) and the template
 * placeholders of other planners (`{Story Title}`, `[Title]`). A story that still holds any of
 * it was never planned: an agent would be paid to implement "Replace this example story".
 * placeholders.test.ts checks this list against the shipped templates, so the two cannot drift.
 */

export const TEMPLATE_EXAMPLE_TEXTS: readonly string[] = [
  'Replace this example story',
  'Replace this second example story',
  'As a user I want the first small, testable slice of the feature so that I get value early.',
  'As a user I want the next slice, built on the first.',
  'Describe one observable behaviour per criterion',
  'Describe one observable behaviour',
];

/** `{Story Title}`, `[Title]`, `<title>`, `TODO`, `TBD`: a whole field that is only a slot. */
const SLOT = /^(?:\{[^{}]+\}|\[[^[\]]+\]|<[^<>]+>|todo|tbd|xxx|\.\.\.|…)$/i;

export interface PlaceholderStory {
  id: string;
  title: string;
  description?: string | undefined;
  acceptanceCriteria: readonly string[];
}

/** What in the story is still example text, e.g. `title "Replace this example story"`; [] if none. */
export function placeholderFields(story: PlaceholderStory): string[] {
  const found: string[] = [];
  const isPlaceholder = (text: string): boolean => {
    const trimmed = text.trim();
    return TEMPLATE_EXAMPLE_TEXTS.includes(trimmed) || SLOT.test(trimmed);
  };
  if (isPlaceholder(story.title)) found.push(`title ${JSON.stringify(story.title)}`);
  if (story.description !== undefined && isPlaceholder(story.description))
    found.push(`description ${JSON.stringify(story.description)}`);
  for (const criterion of story.acceptanceCriteria) {
    if (isPlaceholder(criterion)) found.push(`criterion ${JSON.stringify(criterion)}`);
  }
  return found;
}
