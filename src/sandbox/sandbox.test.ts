import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxInput } from './sandbox.js';

let root = '';
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function setUp(extra: Partial<SandboxInput> = {}) {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-sandbox-unit-')));
  const project = join(root, 'p');
  const home = join(root, 'h');
  mkdirSync(join(project, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(project, '.git', 'config'), '');
  mkdirSync(home);
  const sandbox = createSandbox('/usr/bin/bwrap', {
    projectRoot: project,
    gitDir: join(project, '.git'),
    homeDir: home,
    controlPaths: [],
    controlDirs: [join(project, '.ralph', 'f', 'hooks')],
    env: {},
    writable: [],
    readOnly: [],
    hidden: [],
    ...extra,
  });
  return { sandbox, project, home };
}

describe('createSandbox', () => {
  it('hides the top-level .env files but .env.example, and wraps commands in bwrap', () => {
    const { sandbox, project } = setUp();
    for (const name of ['.env', '.env.local', '.env.example'])
      writeFileSync(join(project, name), '');
    const hidden = sandbox
      .policy()
      .mounts.filter((mount) => mount.kind === 'hide-file')
      .map((mount) => mount.path);
    expect(hidden).toEqual([join(project, '.env'), join(project, '.env.local')]);
    const wrapped = sandbox.wrap('claude', ['-p', 'x']);
    expect(wrapped.file).toBe('/usr/bin/bwrap');
    expect(wrapped.args.slice(-4)).toEqual(['--', 'claude', '-p', 'x']);
  });

  it('creates what must exist before it starts, and removes its temp folder when disposed', () => {
    const { sandbox, project, home } = setUp();
    const tmp = sandbox.policy().mounts.find((mount) => mount.kind === 'tmp')?.source ?? '';
    for (const dir of ['.claude', '.npm', '.cache']) {
      expect(existsSync(join(dir === '.claude' ? project : home, dir))).toBe(true);
    }
    expect(existsSync(join(project, '.ralph', 'f', 'hooks'))).toBe(true);
    expect(tmp).not.toBe('');
    expect(existsSync(tmp)).toBe(true);
    sandbox.dispose();
    expect(existsSync(tmp)).toBe(false);
  });

  it("makes a linked worktree's git folders writable, their hooks and config read-only", () => {
    const { sandbox, project } = setUp();
    const common = join(root, 'main', '.git');
    const own = join(common, 'worktrees', 'w');
    mkdirSync(join(common, 'hooks'), { recursive: true });
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, 'commondir'), '../..\n');
    writeFileSync(join(common, 'config'), '');
    const worktree = createSandbox('/usr/bin/bwrap', {
      projectRoot: project,
      gitDir: own,
      homeDir: join(root, 'h'),
      controlPaths: [],
      controlDirs: [],
      env: { CLAUDE_CONFIG_DIR: join(root, 'cfg') },
      writable: [],
      readOnly: [],
      hidden: [],
    });
    const { mounts } = worktree.policy();
    expect(mounts).toContainEqual({ kind: 'bind', path: own });
    expect(mounts).toContainEqual({ kind: 'bind', path: common });
    expect(mounts).toContainEqual({ kind: 'ro-bind', path: join(common, 'hooks') });
    expect(mounts).toContainEqual({ kind: 'ro-bind', path: join(common, 'config') });
    // CLAUDE_CONFIG_DIR is the agent's state folder: created and writable.
    expect(mounts).toContainEqual({ kind: 'bind', path: join(root, 'cfg') });
    worktree.dispose();
    sandbox.dispose();
  });
});
