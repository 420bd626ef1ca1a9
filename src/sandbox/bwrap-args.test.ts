import { describe, expect, it } from 'vitest';
import { bwrapArgs } from './bwrap-args.js';

describe('bwrapArgs', () => {
  const policy = {
    mounts: [
      { kind: 'tmp', source: '/r/tmp', path: '/tmp' },
      { kind: 'bind', path: '/p' },
      { kind: 'ro-bind', path: '/p/.claude' },
      { kind: 'hide-dir', path: '/h/.ssh' },
      { kind: 'hide-file', source: '/r/empty', path: '/p/.env' },
    ] as const,
    env: { TMPDIR: '/tmp' },
    unsetEnv: ['GITHUB_TOKEN'],
  };

  it('mounts / read-only, a fresh /dev and /proc, then the policy, then runs the command', () => {
    expect(
      bwrapArgs(
        { ...policy, mounts: [...policy.mounts] },
        { file: 'claude', args: ['-p', 'x'] },
        { newSession: false },
      ),
    ).toEqual([
      '--die-with-parent',
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/dev/shm',
      '--bind',
      '/r/tmp',
      '/tmp',
      '--bind',
      '/p',
      '/p',
      '--ro-bind',
      '/p/.claude',
      '/p/.claude',
      '--tmpfs',
      '/h/.ssh',
      '--remount-ro',
      '/h/.ssh',
      '--ro-bind',
      '/r/empty',
      '/p/.env',
      '--setenv',
      'TMPDIR',
      '/tmp',
      '--unsetenv',
      'GITHUB_TOKEN',
      '--',
      'claude',
      '-p',
      'x',
    ]);
  });

  it('starts a new session only when asked (a command sharing a terminal)', () => {
    const args = (newSession: boolean) =>
      bwrapArgs({ mounts: [], env: {}, unsetEnv: [] }, { file: 'true', args: [] }, { newSession });
    expect(args(true)).toContain('--new-session');
    expect(args(false)).not.toContain('--new-session');
  });
});
