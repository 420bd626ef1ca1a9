import { describe, expect, it } from 'vitest';
import { addEntry, normaliseEntries, removeEntries } from './memory-edit.js';
import {
  canonicalTime,
  emptyMemories,
  entriesOf,
  parseMemories,
  serialiseMemories,
} from './memory-format.js';

const FILE = [
  '# Memories',
  '',
  'Intro text, kept as it is.',
  '',
  '## Patterns',
  '',
  '<!-- a comment -->',
  '- [2026-01-15T10:30:00Z] [tags: api,rest] Use dependency injection',
  '- [2026-01-16T14:00:00Z] Mock external APIs in unit tests',
  '',
  '## Decisions',
  '',
  '## Fixes',
  '- [2026-01-17T16:00:00Z] [tags: auth] Lock around the token refresh',
  '  because two tabs refreshed at once',
  '',
  '## Context',
  '',
].join('\n');

const NOW = '2026-11-23T21:00:00Z';

describe('parseMemories', () => {
  it('reads categories, timestamps, tags and wrapped text, and writes the file back unchanged', () => {
    const document = parseMemories(FILE, 'memories.md');
    const entries = entriesOf(document);
    expect(entries.map((each) => [each.category, each.timestamp, each.tags, each.line])).toEqual([
      ['Patterns', '2026-01-15T10:30:00Z', ['api', 'rest'], 8],
      ['Patterns', '2026-01-16T14:00:00Z', [], 9],
      ['Fixes', '2026-01-17T16:00:00Z', ['auth'], 14],
    ]);
    expect(entries[2]?.text).toBe(
      'Lock around the token refresh because two tabs refreshed at once',
    );
    expect(serialiseMemories(document)).toBe(FILE);
    expect(normaliseEntries(document, NOW).changed).toBe(0);
  });

  it('refuses, with the line, a heading that is no category and an entry before any heading', () => {
    expect(() => parseMemories('# Memories\n\n## Learnings\n- x\n', 'm.md')).toThrow(
      /m\.md:3: "## Learnings" is not a memory category/,
    );
    expect(() => parseMemories('# Memories\n- x\n', 'm.md')).toThrow(/m\.md:2: an entry before/);
    expect(() => parseMemories('## Fixes\n- [tags: a]\n', 'm.md')).toThrow(/without text/);
  });

  it('leaves bullets inside code fences and comments alone', () => {
    const text = '# Memories\n```\n- not an entry\n```\n<!--\n## Nope\n-->\n## Fix\n- one\n';
    const document = parseMemories(text, 'm.md');
    expect(entriesOf(document).map((each) => [each.category, each.text])).toEqual([
      ['Fixes', 'one'],
    ]);
  });

  it('reads the times people and agents write', () => {
    expect(canonicalTime('2026-01-15')).toBe('2026-01-15T00:00:00Z');
    expect(canonicalTime('2026-01-15 10:30')).toBe('2026-01-15T10:30:00Z');
    expect(canonicalTime('2026-01-15T10:30:00.123+02:00')).toBe('2026-01-15T08:30:00Z');
    expect(canonicalTime('yesterday')).toBeUndefined();
  });
});

describe('normaliseEntries', () => {
  it("puts the agent's loose entries in ralph's form and leaves every other line byte for byte", () => {
    const appended = FILE.replace(
      '## Context\n',
      [
        '## Context',
        '* [Tags: Auth, #Security] Sessions expire after 30 minutes\r',
        '- [2026-02-01] [tags: billing] Invoices are immutable once sent',
        '',
        '## fixes',
        '',
        '- Restart the dev server after changing .env',
        '',
      ].join('\n'),
    );
    const { document, changed } = normaliseEntries(parseMemories(appended, 'm.md'), NOW);
    expect(changed).toBe(4);
    const text = serialiseMemories(document);
    expect(text).toContain(`- [${NOW}] [tags: auth,security] Sessions expire after 30 minutes\r\n`);
    expect(text).toContain('- [2026-02-01T00:00:00Z] [tags: billing] Invoices are immutable');
    // The second "## fixes" folds into the first Fixes section, after its entries.
    expect(text).toContain(
      `  because two tabs refreshed at once\n- [${NOW}] Restart the dev server after changing .env\n\n## Context`,
    );
    expect(text).not.toContain('## fixes');
    // Untouched lines are identical, and a second pass changes nothing.
    for (const line of FILE.split('\n').slice(0, 14)) expect(text).toContain(line);
    const again = normaliseEntries(parseMemories(text, 'm.md'), '2030-01-01T00:00:00Z');
    expect(again.changed).toBe(0);
    expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
  });
});

describe('addEntry and removeEntries', () => {
  it('adds under the right heading of a new file and removes with the blank lines tidy', () => {
    let document = parseMemories(emptyMemories('feature'), 'm.md');
    document = addEntry(document, {
      category: 'Fixes',
      timestamp: '2026-01-01T00:00:00Z',
      tags: ['db'],
      text: 'Run migrations before seeding',
    });
    document = addEntry(document, {
      category: 'Fixes',
      timestamp: '2026-01-02T00:00:00Z',
      tags: [],
      text: 'Second fix',
    });
    const text = serialiseMemories(document);
    expect(text).toContain(
      '## Fixes\n\n- [2026-01-01T00:00:00Z] [tags: db] Run migrations before seeding\n- [2026-01-02T00:00:00Z] Second fix\n\n## Context\n',
    );
    const { document: pruned, removed } = removeEntries(
      parseMemories(text, 'm.md'),
      (entry) => entry.category === 'Fixes',
    );
    expect(removed).toHaveLength(2);
    expect(serialiseMemories(pruned)).toBe(emptyMemories('feature'));
  });

  it('makes a missing category at the end of a file', () => {
    const document = addEntry(
      parseMemories('# Memories\n\n## Patterns\n- [2026-01-01T00:00:00Z] a', 'm'),
      {
        category: 'Context',
        timestamp: '2026-01-02T00:00:00Z',
        tags: [],
        text: 'b',
      },
    );
    expect(serialiseMemories(document)).toBe(
      '# Memories\n\n## Patterns\n- [2026-01-01T00:00:00Z] a\n\n## Context\n\n- [2026-01-02T00:00:00Z] b\n',
    );
  });
});
