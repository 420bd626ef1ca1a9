import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';

describe('ralph setup --commands (built binary)', () => {
  it('a plain ralph setup installs the planning commands once, and keeps an edited one', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    const dir = join(repo, '.claude', 'commands');
    const first = await runRalph(['setup'], repo, env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/\/ralph-plan\s+created/);
    expect((await readdir(dir)).sort()).toEqual([
      '.ralph-commands.json',
      'ralph-amend.md',
      'ralph-plan.md',
      'ralph-prd.md',
    ]);
    const plan = await readFile(join(dir, 'ralph-plan.md'), 'utf8');
    // ralph is not on PATH here: the commands run this installation's bin.js.
    expect(plan).toMatch(/`\S*node \S+bin\.c?js sync`/);

    const again = await runRalph(['setup', '--commands'], repo, env);
    expect(again.stdout).toMatch(/\/ralph-plan\s+unchanged/);

    await writeFile(join(dir, 'ralph-amend.md'), 'my own amend\n');
    const kept = await runRalph(['setup', '--commands'], repo, env);
    expect(kept.stdout).toMatch(/\/ralph-amend\s+kept/);
    expect(await readFile(join(dir, 'ralph-amend.md'), 'utf8')).toBe('my own amend\n');
    const forced = await runRalph(['setup', '--commands', '--force'], repo, env);
    expect(forced.stdout).toMatch(/\/ralph-amend\s+replaced/);
    expect(await readFile(join(dir, 'ralph-amend.md'), 'utf8')).toContain('# /ralph-amend');
  });

  it('--user installs into ~/.claude/commands, or $CLAUDE_CONFIG_DIR/commands', async () => {
    const { repo, home } = await tempRepo();
    const user = await runRalph(['setup', '--commands', '--user'], repo, testEnv(home));
    expect(user.code).toBe(0);
    expect(await readdir(join(home, '.claude', 'commands'))).toContain('ralph-plan.md');
    const config = join(home, 'claude-config');
    await mkdir(config);
    const env = testEnv(home, { CLAUDE_CONFIG_DIR: config });
    await runRalph(['setup', '--commands', '--user'], repo, env);
    expect(await readdir(join(config, 'commands'))).toContain('ralph-prd.md');
    await expect(readdir(join(repo, '.claude'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
