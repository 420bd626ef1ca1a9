import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendMemory, loadMemories, normaliseMemoryFile, pruneMemoryFile } from './memory-file.js';

async function project(): Promise<{ project: string; feature: string }> {
  const root = await mkdtemp(join(tmpdir(), 'ralph-memory-'));
  await mkdir(join(root, '.ralph', 'feat'), { recursive: true });
  return {
    project: join(root, '.ralph', 'memories.md'),
    feature: join(root, '.ralph', 'feat', 'memories.md'),
  };
}

describe('memories on disk', () => {
  it("a feature inherits the project's entries; its own come first", async () => {
    const files = await project();
    await appendMemory(files.project, 'project', {
      category: 'Patterns',
      timestamp: '2026-01-01T00:00:00Z',
      tags: ['api'],
      text: 'project-wide',
    });
    await appendMemory(files.feature, 'feature', {
      category: 'Fixes',
      timestamp: '2026-01-02T00:00:00Z',
      tags: [],
      text: 'feature-only',
    });
    const entries = await loadMemories(files);
    expect(entries.map((each) => [each.scope, each.category, each.text])).toEqual([
      ['feature', 'Fixes', 'feature-only'],
      ['project', 'Patterns', 'project-wide'],
    ]);
    expect(await loadMemories({ project: undefined, feature: files.feature })).toHaveLength(1);
  });

  it('normalises what the agent appended, and never rewrites a file it cannot parse', async () => {
    const files = await project();
    await appendMemory(files.feature, 'feature', {
      category: 'Context',
      timestamp: '2026-01-01T00:00:00Z',
      tags: [],
      text: 'kept',
    });
    const before = await readFile(files.feature, 'utf8');
    await writeFile(files.feature, `${before}- [tags: DB] agent wrote this\n`);
    expect(await normaliseMemoryFile(files.feature, new Date('2026-03-04T05:06:07.890Z'))).toBe(1);
    expect(await readFile(files.feature, 'utf8')).toBe(
      `${before}- [2026-03-04T05:06:07Z] [tags: db] agent wrote this\n`,
    );
    const broken = `${before}## Gotchas\n- something\n`;
    await writeFile(files.feature, broken);
    await expect(normaliseMemoryFile(files.feature, new Date())).rejects.toThrow(
      /memories\.md:\d+: "## Gotchas" is not a memory category/,
    );
    expect(await readFile(files.feature, 'utf8')).toBe(broken);
  });

  it('refuses a memories.md that is a link (the agent can write the folder)', async () => {
    const files = await project();
    await writeFile(`${files.project}.target`, '# Memories\n');
    await symlink(`${files.project}.target`, files.feature);
    await expect(loadMemories(files)).rejects.toThrow();
  });

  it('prunes only what the filter picks, and writes nothing on a dry run', async () => {
    const files = await project();
    for (const [text, tags] of [
      ['old auth', ['auth']],
      ['old ui', ['ui']],
    ] as const) {
      await appendMemory(files.feature, 'feature', {
        category: 'Fixes',
        timestamp: '2026-01-01T00:00:00Z',
        tags: [...tags],
        text,
      });
    }
    const before = await readFile(files.feature, 'utf8');
    const auth = (entry: { tags: string[] }) => entry.tags.includes('auth');
    expect(await pruneMemoryFile(files.feature, auth, { dryRun: true })).toHaveLength(1);
    expect(await readFile(files.feature, 'utf8')).toBe(before);
    expect((await pruneMemoryFile(files.feature, auth)).map((each) => each.text)).toEqual([
      'old auth',
    ]);
    expect(await readFile(files.feature, 'utf8')).toBe(before.replace(/.*old auth\n/, ''));
  });
});
