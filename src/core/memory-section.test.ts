import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScopedEntry } from '../state/memory-file.js';
import { CHARS_PER_TOKEN, memorySection, readMemorySection } from './memory-section.js';

function entry(
  scope: ScopedEntry['scope'],
  text: string,
  tags: string[] = [],
  timestamp = '2026-01-01T00:00:00Z',
  category: ScopedEntry['category'] = 'Patterns',
): ScopedEntry {
  return { scope, text, tags, timestamp, category, line: 1, file: `${scope}.md` };
}

const base = {
  tokenBudget: 2000,
  injection: 'auto' as const,
  featureFile: '.ralph/feat/memories.md',
  projectFile: '.ralph/memories.md',
};

/** The entry lines and category headings: what the budget bounds. */
function body(section: string): string[] {
  return section.split('\n').filter((line) => line.startsWith('### ') || line.startsWith('- '));
}

describe('memorySection', () => {
  it('auto: a story without tags gets every entry, by category, project ones marked', () => {
    const section = memorySection({
      ...base,
      storyTags: [],
      entries: [
        entry('feature', 'feature fix', ['db'], '2026-01-02T00:00:00Z', 'Fixes'),
        entry('project', 'project pattern', ['api']),
      ],
    });
    expect(body(section)).toEqual([
      '### Patterns',
      '- [tags: api] project pattern (project)',
      '### Fixes',
      '- [tags: db] feature fix',
    ]);
    expect(section).toContain('append it to .ralph/feat/memories.md');
  });

  it("tags: a story with tags gets only the entries sharing one, the project's included", () => {
    const section = memorySection({
      ...base,
      storyTags: ['auth', 'security'],
      entries: [
        entry('feature', 'jwt server side', ['auth']),
        entry('feature', 'css grid', ['ui']),
        entry('project', 'rotate secrets', ['security', 'ops']),
        entry('project', 'untagged'),
      ],
    });
    expect(body(section).filter((line) => line.startsWith('- '))).toEqual([
      '- [tags: auth] jwt server side',
      '- [tags: security,ops] rotate secrets (project)',
    ]);
    expect(section).toContain('for the tags auth, security');
  });

  it('budget: the feature and the newest entries fill it first; the rest are counted', () => {
    const entries = [
      ...Array.from({ length: 30 }, (_, index) =>
        entry(
          'project',
          `project entry ${index} ${'x'.repeat(60)}`,
          [],
          `2026-01-${String(index + 1).padStart(2, '0')}T00:00:00Z`,
        ),
      ),
      entry('feature', `feature entry ${'y'.repeat(60)}`, [], '2025-01-01T00:00:00Z'),
    ];
    const tokenBudget = 100;
    const section = memorySection({ ...base, tokenBudget, storyTags: [], entries });
    const lines = body(section);
    const chars = lines.reduce((sum, line) => sum + line.length + 2, 0);
    expect(chars).toBeLessThanOrEqual(tokenBudget * CHARS_PER_TOKEN);
    expect(lines[1]).toMatch(/^- feature entry/);
    // Newest project entries next: 29, 28, … (1-based day = index + 1).
    expect(lines[2]).toMatch(/^- project entry 29 /);
    const shown = lines.length - 1;
    expect(section).toContain(`${31 - shown} more did not fit the memory budget`);
    expect(memorySection({ ...base, tokenBudget: 0, storyTags: [], entries })).toContain(
      '31 memories did not fit the memory budget',
    );
  });

  it('manual: only stories that name tags get memories; the others are told where they are', () => {
    const entries = [entry('feature', 'kept', ['db'])];
    const untagged = memorySection({ ...base, injection: 'manual', storyTags: [], entries });
    expect(body(untagged)).toEqual([]);
    expect(untagged).toContain(
      'kept in .ralph/feat/memories.md and .ralph/memories.md; read them if they may help',
    );
    const tagged = memorySection({ ...base, injection: 'manual', storyTags: ['db'], entries });
    expect(body(tagged)).toEqual(['### Patterns', '- [tags: db] kept']);
  });

  it('none: the prompt says nothing about memories', () => {
    const entries = [entry('feature', 'kept')];
    expect(memorySection({ ...base, injection: 'none', storyTags: [], entries })).toBe('');
  });
});

describe('readMemorySection', () => {
  it('reads both files as they are now; a file it cannot parse becomes a warning', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ralph-memory-section-'));
    await mkdir(join(root, '.ralph', 'feat'), { recursive: true });
    const files = {
      project: join(root, '.ralph', 'memories.md'),
      feature: join(root, '.ralph', 'feat', 'memories.md'),
    };
    await writeFile(
      files.project,
      '# Memories\n\n## Context\n- [2026-01-01] Orders need a verified account\n',
    );
    const shown = (path: string) => relative(root, path);
    const settings = { tokenBudget: 2000, injection: 'auto' as const, files };
    const read = await readMemorySection(settings, { tags: [] }, shown);
    expect(read.warning).toBeUndefined();
    expect(read.text).toContain('- Orders need a verified account (project)');
    await writeFile(files.feature, '- an entry before any heading\n');
    const broken = await readMemorySection(settings, { tags: [] }, shown);
    expect(broken.text).toBe('');
    expect(broken.warning).toMatch(/feat\/memories\.md:1: an entry before the first category/);
  });
});
