import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import {
  HOOK_POINTS,
  branchToFolderName,
  findPromptFile,
  findTaskListFile,
  loopPaths,
  projectPaths,
  resolveLoopDir,
  userConfigPath,
} from './paths.js';

const gitEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, env: gitEnv, stdio: 'ignore' });
}

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'ralph-paths-')));
  created.push(dir);
  return dir;
}

/** The RalphError a promise rejects with (fails the test if it resolves or throws something else). */
async function failure(promise: Promise<unknown>): Promise<RalphError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RalphError);
  return error as RalphError;
}

async function initRepo(branch: string): Promise<string> {
  const root = await tempDir();
  git(root, 'init', '-q', '-b', branch);
  git(root, 'config', 'user.name', 'Ralph Test');
  git(root, 'config', 'user.email', 'ralph@example.test');
  git(root, 'commit', '-q', '--allow-empty', '-m', 'init');
  return root;
}

describe('loopPaths', () => {
  const paths = loopPaths('/work/loops/feature-x');

  it('names every file of the loop directory', () => {
    expect(paths).toMatchObject({
      dir: '/work/loops/feature-x',
      prd: '/work/loops/feature-x/prd.json',
      featureList: '/work/loops/feature-x/feature_list.json',
      prompt: '/work/loops/feature-x/prompt.md',
      ralphPrompt: '/work/loops/feature-x/RALPH_PROMPT.md',
      progress: '/work/loops/feature-x/progress.txt',
      spec: '/work/loops/feature-x/spec.md',
      specsDir: '/work/loops/feature-x/specs',
      memories: '/work/loops/feature-x/memories.md',
      status: '/work/loops/feature-x/status.json',
      events: '/work/loops/feature-x/events.jsonl',
      safety: '/work/loops/feature-x/safety.json',
      logsDir: '/work/loops/feature-x/logs',
      auditLog: '/work/loops/feature-x/logs/audit.jsonl',
      runLog: '/work/loops/feature-x/logs/run.log',
      hooksDir: '/work/loops/feature-x/hooks',
      archiveDir: '/work/loops/feature-x/archive',
      lock: '/work/loops/feature-x/.ralph.lock',
    });
  });

  it('names iteration logs and refuses counters that are not whole numbers ≥ 1', () => {
    expect(paths.iterationLog(3, 2)).toBe('/work/loops/feature-x/logs/iteration-3-attempt-2.jsonl');
    expect(() => paths.iterationLog(0, 1)).toThrow(RangeError);
    expect(() => paths.iterationLog(1, 1.5)).toThrow(RangeError);
    expect(() => paths.iterationLog(Number.NaN, 1)).toThrow(RangeError);
  });

  it('names one script per hook point', () => {
    expect(HOOK_POINTS.map((point) => paths.hook(point))).toEqual([
      '/work/loops/feature-x/hooks/pre_run.sh',
      '/work/loops/feature-x/hooks/post_run.sh',
      '/work/loops/feature-x/hooks/pre_iteration.sh',
      '/work/loops/feature-x/hooks/post_iteration.sh',
      '/work/loops/feature-x/hooks/on_completion.sh',
      '/work/loops/feature-x/hooks/on_error.sh',
    ]);
  });

  it('makes a relative directory absolute', () => {
    expect(loopPaths('loops/x').dir).toBe(join(process.cwd(), 'loops/x'));
  });
});

describe('config locations', () => {
  it('puts the project config and the interactive audit log under <repo>/.ralph', () => {
    expect(projectPaths('/repo')).toEqual({
      ralphDir: '/repo/.ralph',
      config: '/repo/.ralph/config.yaml',
      auditLog: '/repo/.ralph/logs/audit.jsonl',
      hybridConfig: '/repo/.ralph-hybrid/config.yaml',
      memories: '/repo/.ralph/memories.md',
    });
  });

  it('puts the user config under ~/.config by default', () => {
    expect(userConfigPath({ homeDir: '/home/u', env: {} })).toBe(
      '/home/u/.config/ralph/config.yaml',
    );
  });

  it('honours an absolute XDG_CONFIG_HOME and ignores a relative one', () => {
    expect(userConfigPath({ homeDir: '/home/u', env: { XDG_CONFIG_HOME: '/xdg' } })).toBe(
      '/xdg/ralph/config.yaml',
    );
    expect(userConfigPath({ homeDir: '/home/u', env: { XDG_CONFIG_HOME: 'rel' } })).toBe(
      '/home/u/.config/ralph/config.yaml',
    );
  });
});

describe('findTaskListFile / findPromptFile', () => {
  it('returns undefined when there is none', async () => {
    const dir = await tempDir();
    expect(await findTaskListFile(dir)).toBeUndefined();
    expect(await findPromptFile(dir)).toBeUndefined();
  });

  it('finds feature_list.json alone', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'feature_list.json'), '[]');
    expect(await findTaskListFile(dir)).toEqual({
      path: join(dir, 'feature_list.json'),
      kind: 'feature_list',
      warnings: [],
    });
  });

  it('prefers prd.json and warns when both exist', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'prd.json'), '{}');
    await writeFile(join(dir, 'feature_list.json'), '[]');
    const found = await findTaskListFile(dir);
    expect(found).toMatchObject({ path: join(dir, 'prd.json'), kind: 'prd' });
    expect(found?.warnings).toEqual([expect.stringContaining('feature_list.json')]);
  });

  it('ignores a folder with a task-list name', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'prd.json'));
    await writeFile(join(dir, 'feature_list.json'), '[]');
    expect((await findTaskListFile(dir))?.kind).toBe('feature_list');
  });

  it('falls back to RALPH_PROMPT.md', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'RALPH_PROMPT.md'), '# prompt');
    expect(await findPromptFile(dir)).toEqual({
      path: join(dir, 'RALPH_PROMPT.md'),
      kind: 'ralph_prompt',
      warnings: [],
    });
  });
});

describe('branchToFolderName', () => {
  it('replaces slashes', () => {
    expect(branchToFolderName('feature/user-auth')).toBe('feature-user-auth');
    expect(branchToFolderName('a/b/c')).toBe('a-b-c');
  });

  it('replaces characters that are unsafe in folder names and keeps the rest', () => {
    expect(branchToFolderName('fix\\a:b*c?d"e<f>g|h')).toBe('fix-a-b-c-d-e-f-g-h');
    expect(branchToFolderName('tab\there')).toBe('tab-here');
    expect(branchToFolderName('café_v1.2+x')).toBe('café_v1.2+x');
  });
});

describe('resolveLoopDir', () => {
  it('uses DIR as given, resolved against cwd, without branch checks', async () => {
    const root = await initRepo('main');
    const resolved = await resolveLoopDir({ dir: '.claude/data/ralph-loops/t1', cwd: root });
    expect(resolved).toEqual({
      dir: join(root, '.claude/data/ralph-loops/t1'),
      repoRoot: root,
      branch: 'main',
      warnings: [],
    });
  });

  it('uses DIR outside any repository', async () => {
    const cwd = await tempDir();
    expect(await resolveLoopDir({ dir: '/abs/loop', cwd })).toEqual({
      dir: '/abs/loop',
      warnings: [],
    });
  });

  it('derives .ralph/<branch with / replaced by -> at the repo root', async () => {
    const root = await initRepo('feature/user-auth');
    const sub = join(root, 'packages', 'a');
    await mkdir(sub, { recursive: true });
    expect(await resolveLoopDir({ cwd: sub })).toEqual({
      dir: join(root, '.ralph', 'feature-user-auth'),
      branch: 'feature/user-auth',
      repoRoot: root,
      warnings: [],
    });
  });

  it('fails outside a git repository, with a hint', async () => {
    const cwd = await tempDir();
    const error = await failure(resolveLoopDir({ cwd }));
    expect(error.code).toBe('NOT_A_GIT_REPO');
    expect(error.hint).toContain('git init');
  });

  it('fails on a detached HEAD, with a hint', async () => {
    const root = await initRepo('main');
    git(root, 'checkout', '-q', '--detach');
    const error = await failure(resolveLoopDir({ cwd: root }));
    expect(error.code).toBe('DETACHED_HEAD');
    expect(error.hint).toContain('Check out a branch');
  });

  it('warns on the default protected branches', async () => {
    for (const branch of ['main', 'master', 'develop']) {
      const root = await initRepo(branch);
      const resolved = await resolveLoopDir({ cwd: root });
      expect(resolved.dir).toBe(join(root, '.ralph', branch));
      expect(resolved.warnings).toHaveLength(1);
      expect(resolved.warnings[0]).toContain(`protected branch '${branch}'`);
    }
  });

  it('uses the configured protected branches instead of the defaults', async () => {
    const root = await initRepo('release/1.0');
    expect(
      (await resolveLoopDir({ cwd: root, protectedBranches: ['release/1.0'] })).warnings,
    ).toHaveLength(1);
    const onMain = await initRepo('main');
    expect((await resolveLoopDir({ cwd: onMain, protectedBranches: [] })).warnings).toEqual([]);
  });
});
