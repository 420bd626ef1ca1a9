import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from './harness.js';

/** `ralph memory add | list | prune` through the built binary. */

async function repoWithLoop() {
  const { repo, home } = await tempRepo('feature/memo');
  const env = testEnv(home);
  const init = await runRalph(['init'], repo, env);
  expect(init.code, init.stderr).toBe(0);
  const ralph = (...args: string[]) => runRalph(['memory', ...args], repo, env);
  return { repo, dir: join(repo, '.ralph', 'feature-memo'), ralph };
}

interface ListedEntry {
  scope: string;
  category: string;
  tags: string[];
  text: string;
  timestamp: string | null;
}

describe('ralph memory', () => {
  it('adds to the feature and the project, and lists both with filters', async () => {
    const { repo, dir, ralph } = await repoWithLoop();
    const added = await ralph(
      'add',
      '--category',
      'fixes',
      '--tag',
      'Auth',
      '-t',
      'db,cache',
      'Index the sessions table',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('.ralph/feature-memo/memories.md (Fixes)');
    expect(
      (await ralph('add', '-c', 'Patterns', '--project', 'Services take their clock')).code,
    ).toBe(0);
    expect(
      (await ralph('add', dir, '-c', 'context', '-t', 'ui', 'Dark mode is required')).code,
    ).toBe(0);

    const feature = await readFile(join(dir, 'memories.md'), 'utf8');
    expect(feature).toMatch(
      /## Fixes\n\n- \[\d{4}-[^\]]+Z\] \[tags: auth,db,cache\] Index the sessions table\n/,
    );
    expect(await readFile(join(repo, '.ralph', 'memories.md'), 'utf8')).toContain(
      '] Services take their clock\n',
    );

    const all = await ralph('list', '--json');
    expect(all.code, all.stderr).toBe(0);
    const entries = JSON.parse(all.stdout) as ListedEntry[];
    expect(entries.map((each) => [each.scope, each.category, each.text])).toEqual([
      ['feature', 'Fixes', 'Index the sessions table'],
      ['feature', 'Context', 'Dark mode is required'],
      ['project', 'Patterns', 'Services take their clock'],
    ]);
    const tagged = JSON.parse(
      (await ralph('list', '--tag', 'db', '--json')).stdout,
    ) as ListedEntry[];
    expect(tagged.map((each) => each.text)).toEqual(['Index the sessions table']);
    const projectOnly = await ralph('list', '--project');
    expect(projectOnly.stdout).toContain('Services take their clock');
    expect(projectOnly.stdout).not.toContain('Dark mode');
    const text = await ralph('list', '--category', 'context');
    expect(text.stdout).toMatch(
      /\.ralph\/feature-memo\/memories\.md \(feature\):\n {2}Context .*\[ui\] Dark mode is required\n/,
    );
  });

  it('prunes by tag and age, keeping every other line as it was', async () => {
    const { dir, ralph } = await repoWithLoop();
    const file = join(dir, 'memories.md');
    const kept = [
      '# Memories',
      '',
      'My notes.   (odd spacing kept)',
      '',
      '## Patterns',
      '- [2020-01-01T00:00:00Z] [tags: old] Ancient advice',
      '- [2999-01-01T00:00:00Z] [tags: old,ui] Future advice',
      '- [2026-01-01T00:00:00Z] Untagged',
      '',
    ];
    await writeFile(file, kept.join('\n'));
    const dry = await ralph('prune', '--tag', 'old', '--older-than', '30d', '--dry-run');
    expect(dry.stdout).toContain('Would remove 1 entry');
    expect(await readFile(file, 'utf8')).toBe(kept.join('\n'));
    const pruned = await ralph('prune', '--tag', 'old', '--older-than', '30d');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toContain('Ancient advice');
    expect(await readFile(file, 'utf8')).toBe(
      kept.filter((line) => !line.includes('Ancient')).join('\n'),
    );
    const none = await ralph('prune');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('prune needs a filter');
  });

  it('refuses a bad category, and names the line of a file it cannot parse without touching it', async () => {
    const { dir, ralph } = await repoWithLoop();
    const bad = await ralph('add', '-c', 'gotchas', 'text');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Patterns, Decisions, Fixes, Context');
    const file = join(dir, 'memories.md');
    const broken = '# Memories\n\n## Patterns\n- ok\n## Lessons\n- no home\n';
    await writeFile(file, broken);
    for (const args of [['list'], ['add', '-c', 'fixes', 'x'], ['prune', '-t', 'x']]) {
      const result = await ralph(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/memories\.md:5: "## Lessons" is not a memory category/);
    }
    expect(await readFile(file, 'utf8')).toBe(broken);
  });
});
