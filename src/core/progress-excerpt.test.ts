import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEAD_BYTES, readProgressExcerpt, splitProgress } from './progress-excerpt.js';
import { progressSection } from './progress-section.js';

const dir = () => mkdtemp(join(tmpdir(), 'ralph-progress-'));

describe('readProgressExcerpt', () => {
  it('reads a big file only at its head and tail: patterns from the head, the newest text', async () => {
    const file = join(await dir(), 'progress.txt');
    const filler = 'old entry line\n'.repeat(100_000);
    await writeFile(
      file,
      `# Progress\n\n## Codebase Patterns\n- P1\n- P2\n\n---\n${filler}---\nnewest entry\n`,
    );
    const excerpt = await readProgressExcerpt(file, 4000);
    expect(excerpt).toMatchObject({
      patterns: '## Codebase Patterns\n- P1\n- P2',
      complete: false,
    });
    expect(excerpt?.totalBytes).toBeGreaterThan(HEAD_BYTES + 4000);
    expect(excerpt?.recent.length).toBeLessThanOrEqual(4000);
    expect(excerpt?.recent.endsWith('---\nnewest entry\n')).toBe(true);
    // The first line of the tail may be cut in the middle: it is dropped.
    expect(excerpt?.recent.startsWith('old entry line\n')).toBe(true);
  });

  it('finds a patterns section the agent appended at the end instead', async () => {
    const file = join(await dir(), 'progress.txt');
    await writeFile(file, `${'x\n'.repeat(60_000)}### Codebase patterns\n- late\n## Next\nafter\n`);
    const excerpt = await readProgressExcerpt(file, 2000);
    expect(excerpt?.patterns).toBe('### Codebase patterns\n- late');
    expect(excerpt?.recent).not.toContain('- late');
    expect(excerpt?.recent).toContain('## Next\nafter');
  });

  it('gives nothing for a missing file or a link (its target must not reach the prompt)', async () => {
    const folder = await dir();
    expect(await readProgressExcerpt(join(folder, 'none.txt'), 1000)).toBeUndefined();
    await writeFile(join(folder, 'secret'), 'SECRET\n');
    await symlink(join(folder, 'secret'), join(folder, 'progress.txt'));
    expect(await readProgressExcerpt(join(folder, 'progress.txt'), 1000)).toBeUndefined();
  });
});

describe('progressSection', () => {
  const excerpt = {
    ...splitProgress('## Codebase Patterns\n- P\n\n---\na\n---\nb\n', true),
    totalBytes: 40,
  };

  it('quotes a small file whole, after its patterns', () => {
    expect(progressSection(excerpt, 'p.txt').render(1000)).toBe(
      '## Codebase Patterns\n- P\n\n## From p.txt (all of it)\n\n---\na\n---\nb',
    );
  });

  it('keeps the newest entries that fit, and cuts patterns that alone are too long', () => {
    const entries = ['a', 'b', 'c', 'd'].map((name) => `---\n${name.repeat(40)}\n`).join('');
    const many = { ...excerpt, recent: entries };
    const text = progressSection(many, 'p.txt').render(200);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text).toContain('## Newest entries of p.txt');
    expect(text.endsWith(`---\n${'d'.repeat(40)}`)).toBe(true);
    expect(text).not.toContain('a'.repeat(40));
    const long = { ...excerpt, patterns: `## Codebase Patterns\n${'- rule\n'.repeat(100)}` };
    const cut = progressSection(long, 'p.txt').render(200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toContain('… (cut here; the whole section is in the file)');
    expect(progressSection(undefined, 'p.txt').render(1000)).toBe('');
  });
});
