import { describe, expect, it } from 'vitest';
import {
  isSecretEnvFile,
  isSecretVariable,
  sandboxPolicy,
  type PathKind,
  type SandboxPolicyInput,
} from './policy.js';

const dirs = new Set([
  '/home/u/.npm',
  '/home/u/.cache',
  '/home/u/.claude',
  '/home/u/.ssh',
  '/p',
  '/p/.git/hooks',
  '/p/.claude',
  '/p/.ralph/f/hooks',
  '/g/wt',
  '/g/wt/hooks',
]);
const files = new Set([
  '/home/u/.claude/settings.json',
  '/home/u/.netrc',
  '/p/.git/config',
  '/p/.env',
  '/p/.ralph/f/config.yaml',
]);
const kindOf = (path: string): PathKind =>
  dirs.has(path) ? 'dir' : files.has(path) ? 'file' : 'missing';

const input = (extra: Partial<SandboxPolicyInput> = {}): SandboxPolicyInput => ({
  projectRoot: '/p',
  outsideGitDirs: [],
  gitDirs: ['/p/.git'],
  homeDir: '/home/u',
  tmpDir: '/run/r/tmp',
  emptyFile: '/run/r/empty',
  controlPaths: ['/p/.ralph/f/config.yaml', '/p/.ralph/f/hooks', '/p/.ralph/f/status.json'],
  envFiles: ['/p/.env'],
  agentStateDir: '/home/u/.claude',
  extraWritable: [],
  extraReadOnly: [],
  extraHidden: [],
  kindOf,
  envNames: ['PATH', 'GITHUB_TOKEN', 'ANTHROPIC_API_KEY', 'RALPH_GUARD_TOKEN'],
  ...extra,
});

describe('sandboxPolicy', () => {
  it('binds the private tmp, writable areas, then read-only islands, then hides secrets, in that order', () => {
    expect(sandboxPolicy(input())).toEqual({
      mounts: [
        { kind: 'tmp', source: '/run/r/tmp', path: '/tmp' },
        { kind: 'bind', path: '/home/u/.npm' },
        { kind: 'bind', path: '/home/u/.cache' },
        { kind: 'bind', path: '/home/u/.claude' },
        { kind: 'bind', path: '/p' },
        { kind: 'ro-bind', path: '/home/u/.claude/settings.json' },
        { kind: 'ro-bind', path: '/p/.git/hooks' },
        { kind: 'ro-bind', path: '/p/.git/config' },
        { kind: 'ro-bind', path: '/p/.claude' },
        { kind: 'ro-bind', path: '/p/.ralph/f/config.yaml' },
        { kind: 'ro-bind', path: '/p/.ralph/f/hooks' },
        { kind: 'hide-dir', path: '/home/u/.ssh' },
        { kind: 'hide-file', source: '/run/r/empty', path: '/home/u/.netrc' },
        { kind: 'hide-file', source: '/run/r/empty', path: '/p/.env' },
      ],
      env: { TMPDIR: '/tmp', CLAUDE_CODE_TMPDIR: '/tmp' },
      unsetEnv: ['GITHUB_TOKEN'],
    });
  });

  it('pins .git and every folder down to a control path, so none can be renamed and replaced', () => {
    const folders = new Set([...dirs, '/p/.git', '/p/.ralph', '/p/.ralph/f']);
    const policy = sandboxPolicy(
      input({ kindOf: (path) => (folders.has(path) ? 'dir' : kindOf(path)) }),
    );
    const binds = policy.mounts.filter((mount) => mount.kind === 'bind').map((m) => m.path);
    // After the work tree's bind (which would cover them), before the read-only islands inside.
    expect(binds.slice(binds.indexOf('/p'))).toEqual(['/p', '/p/.git', '/p/.ralph', '/p/.ralph/f']);
    const firstReadOnly = policy.mounts.findIndex((mount) => mount.kind === 'ro-bind');
    const lastPin = policy.mounts.findIndex(
      (mount) => 'path' in mount && mount.path === '/p/.ralph/f',
    );
    expect(lastPin).toBeLessThan(firstReadOnly);
  });

  it('keeps programs installed under the host /tmp visible (read-only) behind the private one', () => {
    const checkout = '/tmp/ci/main';
    const { mounts } = sandboxPolicy(
      input({
        programDirs: [`${checkout}/node_modules/.bin`, '/usr/bin', '/tmp/gone/bin'],
        kindOf: (path) => (path === '/tmp/ci' ? 'dir' : kindOf(path)),
      }),
    );
    expect(mounts.slice(0, 2)).toEqual([
      { kind: 'tmp', source: '/run/r/tmp', path: '/tmp' },
      { kind: 'ro-bind', path: '/tmp/ci' },
    ]);
    expect(mounts).not.toContainEqual({ kind: 'ro-bind', path: '/tmp/gone' });
    expect(mounts).not.toContainEqual({ kind: 'ro-bind', path: '/usr' });
  });

  it('adds configured paths and worktree git folders, skipping ones that do not exist', () => {
    const { mounts } = sandboxPolicy(
      input({
        outsideGitDirs: ['/g/wt'],
        gitDirs: ['/p/.git', '/g/wt'],
        extraWritable: ['/nowhere'],
        extraReadOnly: ['/p/.claude'],
        extraHidden: ['/home/u/.ssh'],
      }),
    );
    expect(mounts).toContainEqual({ kind: 'bind', path: '/g/wt' });
    expect(mounts).toContainEqual({ kind: 'ro-bind', path: '/g/wt/hooks' });
    expect(mounts.some((each) => each.path === '/nowhere')).toBe(false);
    expect(mounts.filter((each) => each.path === '/p/.claude')).toHaveLength(1);
    expect(mounts.filter((each) => each.path === '/home/u/.ssh')).toHaveLength(1);
  });
});

describe('isSecretEnvFile', () => {
  it.each([
    ['.env', true],
    ['.env.local', true],
    ['.env.production', true],
    ['.env.example', false],
    ['.envrc', false],
    ['env', false],
  ])('%s → %s', (name, secret) => {
    expect(isSecretEnvFile(name)).toBe(secret);
  });
});

describe('isSecretVariable', () => {
  it.each([
    ['GITHUB_TOKEN', true],
    ['NPM_TOKEN', true],
    ['DB_PASSWORD', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['AWS_ACCESS_KEY_ID', true],
    ['STRIPE_API_KEY', true],
    ['SSH_AUTH_SOCK', true],
    // What an outside attack found kept: personal tokens, keys and connection strings.
    ['GITHUB_PAT', true],
    ['OPENAI_KEY', true],
    ['APIKEY', true],
    ['DATABASE_URL', true],
    ['SENTRY_DSN', true],
    ['SLACK_WEBHOOK_URL', true],
    ['STRIPE_SK', true],
    ['DB_PASS', true],
    ['AUTH_HEADER', true],
    ['ANTHROPIC_API_KEY', false],
    ['CLAUDE_CODE_OAUTH_TOKEN', false],
    ['RALPH_GUARD_TOKEN', false],
    ['PATH', false],
    ['TOKENIZER_PATH', false],
  ])('%s → %s', (name, secret) => {
    expect(isSecretVariable(name)).toBe(secret);
  });

  it('keeps the cloud credentials Claude Code itself runs on (Bedrock, Vertex)', () => {
    expect(isSecretVariable('AWS_SECRET_ACCESS_KEY', ['CLAUDE_CODE_USE_BEDROCK'])).toBe(false);
    expect(isSecretVariable('GOOGLE_APPLICATION_CREDENTIALS', ['CLAUDE_CODE_USE_VERTEX'])).toBe(
      false,
    );
    expect(isSecretVariable('GOOGLE_APPLICATION_CREDENTIALS')).toBe(true);
  });
});
