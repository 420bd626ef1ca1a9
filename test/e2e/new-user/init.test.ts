import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';

/** The command a hint names in backquotes, as argv after `ralph`. */
function commandIn(text: string): string[] {
  const command = /`ralph ([^`]+)`/.exec(text)?.[1];
  expect(command, text).toBeDefined();
  return (command ?? '').split(' ');
}

describe('ralph init and validate as a new user meets them', () => {
  it('outside git, init says to run `git init` first, not `ralph run DIR`', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-e2e-nogit-')));
    const home = join(root, 'home');
    const project = join(root, 'project');
    await mkdir(home);
    await mkdir(project);
    const bare = await runRalph(['init'], project, testEnv(home));
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('git init');
    expect(bare.stderr).not.toContain('ralph run DIR');

    const named = await runRalph(['init', 'loop'], project, testEnv(home));
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('git init');
  });

  it("validate's fix for a missing task list is a command that works", async () => {
    const { repo, home } = await tempRepo();
    expect((await runRalph(['init'], repo, testEnv(home))).code).toBe(0);
    const loop = join(repo, '.ralph', 'feature-csv-export');
    await rm(join(loop, 'prd.json'));

    const before = await runRalph(['validate'], repo, testEnv(home));
    expect(before.code).toBe(2);
    const hint = before.stdout.split('\n').find((line) => line.includes('ralph init')) ?? '';
    const fix = await runRalph(commandIn(hint), repo, testEnv(home));
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stdout).toContain('prd.json');

    const after = await runRalph(['validate'], repo, testEnv(home));
    expect(after.stdout).toContain('Required files present');
  });

  it('init refuses to overwrite and names the command that completes the folder', async () => {
    const { repo, home } = await tempRepo();
    expect((await runRalph(['init'], repo, testEnv(home))).code).toBe(0);
    const again = await runRalph(['init'], repo, testEnv(home));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('ralph init --missing');
    const complete = await runRalph(['init', '--missing'], repo, testEnv(home));
    expect(complete.code).toBe(0);
    expect(complete.stdout).toContain('nothing written');
  });
});
