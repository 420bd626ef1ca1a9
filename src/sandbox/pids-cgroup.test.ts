import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createPidsCgroup,
  deadOwnerEntries,
  joinCgroupFirst,
  SANDBOX_PREFIX,
  sweepPidsCgroups,
} from './pids-cgroup.js';

/** Plain folders stand in for cgroup hierarchies: what the kernel adds is not what is tested. */
let root = '';
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});
function hierarchy(): string {
  root = mkdtempSync(join(tmpdir(), 'ralph-cgroup-unit-'));
  return root;
}

describe('createPidsCgroup', () => {
  it('is undefined where no hierarchy can be written', () => {
    expect(createPidsCgroup('x', 10, [join(hierarchy(), 'missing', 'deeper')])).toBeUndefined();
  });

  it('leaves no folder behind in a hierarchy without the pids controller', () => {
    const dir = hierarchy();
    // A plain folder has no cgroup.procs: the cgroup is not usable and is removed again.
    expect(createPidsCgroup('ralph-sandbox-1-a', 10, [dir])).toBeUndefined();
    expect(existsSync(join(dir, 'ralph-sandbox-1-a'))).toBe(false);
  });
});

describe('joinCgroupFirst', () => {
  it('moves the shell into the cgroup, then execs the command with its arguments as they are', () => {
    expect(
      joinCgroupFirst('/cg/cgroup.procs', '/usr/bin/bwrap', ['--', 'sh', '-c', 'a b']),
    ).toEqual({
      file: '/bin/sh',
      args: [
        '-c',
        'echo $$ > "$0" && exec "$@"',
        '/cg/cgroup.procs',
        '/usr/bin/bwrap',
        '--',
        'sh',
        '-c',
        'a b',
      ],
    });
  });
});

describe('deadOwnerEntries and sweepPidsCgroups', () => {
  it('names and removes only the entries whose owner is gone', () => {
    const dir = hierarchy();
    for (const name of [`${SANDBOX_PREFIX}100-a`, `${SANDBOX_PREFIX}200-b`, 'other-300-c'])
      mkdirSync(join(dir, name));
    const alive = (pid: number) => pid === 200;
    expect(deadOwnerEntries(dir, alive)).toEqual([join(dir, `${SANDBOX_PREFIX}100-a`)]);
    sweepPidsCgroups(alive, [dir]);
    expect(existsSync(join(dir, `${SANDBOX_PREFIX}100-a`))).toBe(false);
    expect(existsSync(join(dir, `${SANDBOX_PREFIX}200-b`))).toBe(true);
    expect(existsSync(join(dir, 'other-300-c'))).toBe(true);
  });
});
