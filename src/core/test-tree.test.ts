import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitOnlyRunner, ISOLATED_GIT_ENV } from '../../test/git-check-runner.js';
import { afterAll, describe, expect, it } from 'vitest';
import { findTestTampering } from './test-integrity.js';
import { blobHash, readStartPoint, readTestDiff } from './test-tree.js';

/**
 * Reading the iteration's test changes with a real git: whatever the agent does to git's view of
 * the work tree (index flags, attributes, config, replace refs), the bytes on disk decide.
 */

const GLOBS = ['**/*.test.js'];
const MUL = "const assert = require('node:assert');\nassert.strictEqual(2 * 3, 6);\n";
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const env = ISOLATED_GIT_ENV;
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env, encoding: 'utf8' });

const runner = gitOnlyRunner();

async function repo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-test-tree-'));
  dirs.push(dir);
  await mkdir(join(dir, 'test'));
  await writeFile(join(dir, 'test/mul.test.js'), MUL);
  await writeFile(join(dir, 'test/add.test.js'), MUL.replace('2 * 3, 6', '2 + 3, 5'));
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'one');
  return dir;
}

async function problems(dir: string, tamper: (dir: string) => Promise<void>): Promise<string[]> {
  const start = await readStartPoint(runner, dir);
  expect(start).toBeDefined();
  await tamper(dir);
  const diff = await readTestDiff(runner, dir, start!, GLOBS);
  return findTestTampering(diff!);
}

const WEAKENED = MUL.replace('assert.strictEqual', '// assert.strictEqual');

describe('readTestDiff', () => {
  it.each([
    ['assume-unchanged', ['update-index', '--assume-unchanged', 'test/mul.test.js']],
    ['skip-worktree', ['update-index', '--skip-worktree', 'test/mul.test.js']],
  ])('sees a change git is told to ignore (%s)', async (flag, args) => {
    const dir = await repo();
    const found = await problems(dir, async () => {
      git(dir, ...args);
      await writeFile(join(dir, 'test/mul.test.js'), WEAKENED);
      expect(git(dir, 'diff', '--name-only')).toBe('');
    });
    expect(found).toEqual([
      `hid changes to test/mul.test.js from git (update-index --${flag}; ralph reads the file itself)`,
      'removed 1 assertion(s) from test/mul.test.js (1 before, 0 now)',
    ]);
  });

  it('ignores a replace ref that swaps the base commit for a weakened one', async () => {
    const dir = await repo();
    const found = await problems(dir, async () => {
      await writeFile(join(dir, 'test/mul.test.js'), WEAKENED);
      git(dir, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qam', 'weaken');
      git(dir, 'replace', '-f', 'HEAD~1', 'HEAD');
      expect(git(dir, 'diff', '--name-only', 'HEAD~1')).toBe('');
    });
    expect(found).toEqual(['removed 1 assertion(s) from test/mul.test.js (1 before, 0 now)']);
  });

  it('sees through a clean filter, -diff and noprefix', async () => {
    const dir = await repo();
    const found = await problems(dir, async () => {
      await writeFile(join(dir, '.gitattributes'), '*.test.js filter=hide -diff\n');
      git(dir, 'config', 'filter.hide.clean', 'git show HEAD:%f');
      git(dir, 'config', 'diff.noprefix', 'true');
      git(dir, 'config', 'diff.mnemonicPrefix', 'true');
      await writeFile(join(dir, 'test/mul.test.js'), WEAKENED);
      await writeFile(join(dir, 'test/add.test.js'), WEAKENED);
      expect(git(dir, 'diff', '--name-only')).toBe('');
    });
    expect(found).toHaveLength(2);
  });

  it('reports a deleted test, accepts a test renamed to another test, and reads new ones', async () => {
    const dir = await repo();
    const found = await problems(dir, async () => {
      await rm(join(dir, 'test/add.test.js'));
      git(dir, 'mv', 'test/mul.test.js', 'test/times.test.js');
      await writeFile(join(dir, 'test/new.test.js'), "test.only('x', () => {});\n");
    });
    expect(found).toEqual([
      'deleted test file test/add.test.js',
      "added a skip/only/todo marker in test/new.test.js: test.only('x', () => {});",
    ]);
  });

  it('reads the files where ralph runs when git’s work tree points elsewhere', async () => {
    const dir = await repo();
    const pristine = await repo();
    const found = await problems(dir, async () => {
      git(dir, 'config', 'core.worktree', pristine);
      await writeFile(join(dir, 'test/mul.test.js'), WEAKENED);
    });
    expect(found).toEqual([
      `pointed git's work tree elsewhere (${pristine}: core.worktree)`,
      'removed 1 assertion(s) from test/mul.test.js (1 before, 0 now)',
    ]);
  });

  it('reports a test moved out of the test globs', async () => {
    const dir = await repo();
    const found = await problems(dir, () => {
      git(dir, 'mv', 'test/mul.test.js', 'test/mul.fixture.txt');
      return Promise.resolve();
    });
    expect(found).toEqual([
      'moved test file test/mul.test.js out of the tests (to test/mul.fixture.txt)',
    ]);
  });

  it('has no start point before the first commit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-test-tree-'));
    dirs.push(dir);
    git(dir, 'init', '-q');
    expect(await readStartPoint(runner, dir)).toBeUndefined();
  });
});

describe('blobHash', () => {
  it('is git’s object id', async () => {
    const dir = await repo();
    const id = git(dir, 'rev-parse', 'HEAD:test/mul.test.js').trim();
    expect(blobHash(Buffer.from(MUL), 40)).toBe(id);
  });
});
