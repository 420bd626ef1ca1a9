import { describe, expect, it } from 'vitest';
import {
  appendToSection,
  joinSpec,
  renderStory,
  splitSpec,
  storyBlocks,
  storyDescription,
  storyPriority,
} from './spec-text.js';

const TEXT = [
  '# F',
  '',
  '## User Stories',
  '',
  '### STORY-001: One',
  '',
  '**As a** user **I want to** one',
  '',
  '**Acceptance Criteria:**',
  '',
  '- [ ] a',
  '',
  '**Priority:** 3',
  '',
  '```md',
  '### STORY-009: an example inside a fence',
  '```',
  '',
  '---',
  '',
  '## Descoped Stories',
  '',
  '### STORY-005: Gone (Removed AMD-001)',
  '',
  '## Out of Scope',
  '',
  '- x',
  '',
].join('\n');

describe('spec-text', () => {
  it('finds story blocks outside fences and Descoped Stories, ending at their last content line', () => {
    const { lines } = splitSpec(TEXT);
    const blocks = storyBlocks(lines);
    expect(blocks.map((b) => [b.id, b.title, b.start, b.end])).toEqual([
      ['STORY-001', 'One', 4, 17],
    ]);
    const block = blocks[0]!;
    expect(storyDescription(lines, block)).toBe('As a user I want to one');
    expect(storyPriority(lines, block)).toBe(3);
  });

  it('appends to an existing section before its closing rule, or creates it before another', () => {
    const spec = splitSpec(TEXT);
    appendToSection(spec, 'user stories', 'User Stories', ['### STORY-002: Two']);
    appendToSection(spec, 'amendments', 'Amendments', ['### AMD-001: x'], {
      beforeSection: 'descoped stories',
    });
    const text = joinSpec(spec);
    expect(text).toContain(
      '```\n\n### STORY-002: Two\n\n---\n\n## Amendments\n\n### AMD-001: x\n\n## Descoped',
    );
    // Created at the end when there is no section to go before; the final newline stays.
    const end = splitSpec('# F\n\n## User Stories\n');
    appendToSection(end, 'amendments', 'Amendments', ['x'], { intro: '<!-- i -->' });
    expect(joinSpec(end)).toBe('# F\n\n## User Stories\n\n## Amendments\n<!-- i -->\n\nx\n');
  });

  it('renders text from flags so that it can never become a heading or a fence', () => {
    const lines = renderStory(
      {
        id: 'S-1',
        title: 'T\nwith break',
        description: '## not a section',
        acceptanceCriteria: ['```'],
      },
      3,
    );
    // A criterion keeps its text exactly: it is compared with prd.json's.
    expect(lines).toEqual([
      '### S-1: T with break',
      '',
      '\\## not a section',
      '',
      '**Acceptance Criteria:**',
      '',
      '- [ ] ```',
    ]);
  });
});
