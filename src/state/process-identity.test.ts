import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isOtherProcess, isProcessAlive, processStartOf } from './process-identity.js';

/** A pid that certainly belonged to a process that has exited (and been reaped). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

const linux = existsSync('/proc/self/stat');

describe('isProcessAlive', () => {
  it('tells a live process from a dead one', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(deadPid())).toBe(false);
    // pid 1 always exists; unless we are root, probing it is EPERM, which still means alive.
    expect(isProcessAlive(1)).toBe(true);
  });

  it('counts an exited but unreaped child (a zombie) as gone', async () => {
    const shell = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pid = Number(
      (
        await new Promise<string>((resolve) =>
          shell.stdout.once('data', (data: Buffer) => {
            resolve(data.toString());
          }),
        )
      ).trim(),
    );
    // `exec sleep` replaced the shell without reaping its child: the child stays a zombie.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(isProcessAlive(pid)).toBe(false);
    expect(isProcessAlive(shell.pid!)).toBe(true);
    shell.kill('SIGKILL');
  });
});

describe.runIf(linux)('processStartOf (Linux /proc)', () => {
  it('names this process the same way each time, and another process differently', async () => {
    const mine = processStartOf(process.pid);
    expect(mine).toMatch(/^[0-9a-f-]{36}:\d+$/); // boot id : start ticks
    expect(processStartOf(process.pid)).toBe(mine);
    const child = spawn('sleep', ['5'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const theirs = processStartOf(child.pid!);
    expect(theirs).toBeDefined();
    expect(theirs).not.toBe(mine);
    child.kill('SIGKILL');
  });

  it('is undefined for a pid that runs nothing', () => {
    expect(processStartOf(deadPid())).toBeUndefined();
  });
});

describe('isOtherProcess', () => {
  const startOf = (pid: number) => (pid === 42 ? 'boot:100' : undefined);
  it.each([
    { recorded: 'boot:100', pid: 42, other: false, why: 'same start: the same process' },
    { recorded: 'boot:99', pid: 42, other: true, why: 'another start: the pid was reused' },
    { recorded: undefined, pid: 42, other: false, why: 'nothing recorded (an older lock)' },
    { recorded: 'boot:100', pid: 7, other: false, why: 'unknown now (no /proc): trust the pid' },
  ])('$why', ({ recorded, pid, other }) => {
    expect(isOtherProcess(pid, recorded, startOf)).toBe(other);
  });
});
