import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findGitRepo, parseHead } from './git.js';

// Real git, isolated from the machine's config and from any GIT_DIR the test runner inherited.
const gitEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' }).trim();
}

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'ralph-git-')));
  created.push(dir);
  return dir;
}

async function initRepo(branch: string, options: { commit?: boolean } = {}): Promise<string> {
  const root = await tempDir();
  git(root, 'init', '-q', '-b', branch);
  git(root, 'config', 'user.name', 'Ralph Test');
  git(root, 'config', 'user.email', 'ralph@example.test');
  if (options.commit ?? true) git(root, 'commit', '-q', '--allow-empty', '-m', 'init');
  return root;
}

describe('findGitRepo', () => {
  it('returns undefined outside a repository', async () => {
    expect(await findGitRepo(await tempDir())).toBeUndefined();
  });

  it('finds the root and branch from a nested folder', async () => {
    const root = await initRepo('main');
    const nested = join(root, 'src', 'deep');
    await mkdir(nested, { recursive: true });
    expect(await findGitRepo(nested)).toEqual({
      root,
      gitDir: join(root, '.git'),
      branch: 'main',
      detached: false,
    });
  });

  it('keeps slashes in branch names', async () => {
    const root = await initRepo('main');
    git(root, 'switch', '-q', '-c', 'feature/user-auth/v2');
    expect((await findGitRepo(root))?.branch).toBe('feature/user-auth/v2');
  });

  it('names an unborn branch (fresh git init, no commits)', async () => {
    const root = await initRepo('feature/first', { commit: false });
    expect(await findGitRepo(root)).toMatchObject({ branch: 'feature/first', detached: false });
  });

  it('reports a detached HEAD', async () => {
    const root = await initRepo('main');
    git(root, 'checkout', '-q', '--detach');
    expect(await findGitRepo(root)).toMatchObject({ root, branch: undefined, detached: true });
  });

  it('follows the .git file of a linked worktree', async () => {
    const root = await initRepo('main');
    const worktree = join(await tempDir(), 'wt');
    git(root, 'worktree', 'add', '-q', '-b', 'feature/wt', worktree);
    const repo = await findGitRepo(join(worktree));
    expect(repo).toEqual({
      root: worktree,
      gitDir: join(root, '.git', 'worktrees', 'wt'),
      branch: 'feature/wt',
      detached: false,
    });
    // The main checkout is unaffected.
    expect((await findGitRepo(root))?.branch).toBe('main');
  });

  it('resolves a relative gitdir against the folder of the .git file (submodule style)', async () => {
    const base = await tempDir();
    git(base, 'init', '-q', '-b', 'topic', '--separate-git-dir', join(base, 'store.git'), 'work');
    await writeFile(join(base, 'work', '.git'), 'gitdir: ../store.git\n');
    expect(await findGitRepo(join(base, 'work'))).toEqual({
      root: join(base, 'work'),
      gitDir: join(base, 'store.git'),
      branch: 'topic',
      detached: false,
    });
  });

  it('rejects a .git file without a gitdir line', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '.git'), 'nonsense\n');
    await expect(findGitRepo(dir)).rejects.toMatchObject({
      code: 'NOT_A_GIT_REPO',
      location: { file: join(dir, '.git') },
    });
  });

  it('rejects a .git file whose gitdir is gone (a pruned worktree)', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '.git'), `gitdir: ${join(dir, 'missing')}\n`);
    await expect(findGitRepo(dir)).rejects.toMatchObject({ code: 'NOT_A_GIT_REPO' });
  });

  it('walks past a .git folder that has no HEAD, as git does', async () => {
    const root = await initRepo('main');
    const inner = join(root, 'vendor', 'thing');
    await mkdir(join(inner, '.git'), { recursive: true });
    expect((await findGitRepo(inner))?.root).toBe(root);
  });
});

describe('parseHead', () => {
  it('reads a branch ref', () => {
    expect(parseHead('ref: refs/heads/feature/x\n')).toEqual({
      branch: 'feature/x',
      detached: false,
    });
  });

  it('treats an object id as detached (sha-1 and sha-256)', () => {
    expect(parseHead(`${'a'.repeat(40)}\n`)).toEqual({ branch: undefined, detached: true });
    expect(parseHead(`${'b'.repeat(64)}\n`)).toEqual({ branch: undefined, detached: true });
  });

  it('treats a symbolic ref outside refs/heads as not on a branch', () => {
    expect(parseHead('ref: refs/remotes/origin/main\n').branch).toBeUndefined();
    expect(parseHead('ref: refs/heads/\n').branch).toBeUndefined();
  });
});
