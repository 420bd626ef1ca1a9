import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import { acquireLock, readLock } from './lock.js';

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-lock-'));
  created.push(dir);
  return dir;
}

/** A pid that certainly belonged to a process that has exited (and been reaped). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
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

const now = new Date('2025-01-02T03:04:05.000Z');
const mine = { pid: process.pid, command: 'ralph run .ralph/x', now };

/** The lock folder's holder file, parsed. */
async function lockJson(dir: string): Promise<unknown> {
  const entries = await readdir(join(dir, '.ralph.lock'));
  expect(entries).toHaveLength(1);
  return JSON.parse(await readFile(join(dir, '.ralph.lock', entries[0] ?? ''), 'utf8'));
}

/** Puts a lock in place as another process would have left it. */
async function plantLock(dir: string, content: unknown, name = 'holder-0123abcd.json') {
  await mkdir(join(dir, '.ralph.lock'));
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  await writeFile(join(dir, '.ralph.lock', name), text);
}

describe('acquireLock', () => {
  it('writes the holder, and release removes it', async () => {
    const dir = await tempDir();
    const lock = await acquireLock(dir, mine);
    expect(lock.warnings).toEqual([]);
    const { processStart, ...written } = (await lockJson(dir)) as Record<string, unknown>;
    expect(written).toEqual({
      pid: process.pid,
      hostname: hostname(),
      command: 'ralph run .ralph/x',
      startedAt: '2025-01-02T03:04:05.000Z',
    });
    // Which process has the pid (process-identity.ts): known where /proc is.
    expect(typeof processStart).toBe(process.platform === 'linux' ? 'string' : 'undefined');
    expect(await readdir(dir)).toEqual(['.ralph.lock']);
    await lock.release();
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
    await (await acquireLock(dir, mine)).release();
  });

  it('refuses a second run while the holder is alive, naming its pid', async () => {
    const dir = await tempDir();
    const lock = await acquireLock(dir, mine);
    const error = await failure(acquireLock(dir, { ...mine, command: 'ralph run again' }));
    expect(error.code).toBe('LOCKED');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.hint).toContain(`kill -INT ${process.pid}`);
    // The refused attempt left the holder's lock intact and no temp file behind.
    expect(await lockJson(dir)).toMatchObject({ command: 'ralph run .ralph/x' });
    expect(await readdir(dir)).toEqual(['.ralph.lock']);
    await lock.release();
  });

  it('takes over a stale lock left by a dead process, with a warning', async () => {
    const dir = await tempDir();
    const dead = deadPid();
    const stale = { pid: dead, hostname: hostname(), command: 'ralph run', startedAt: 'earlier' };
    await plantLock(dir, stale);
    const lock = await acquireLock(dir, mine);
    expect(lock.warnings).toEqual([
      `took over a stale lock left by pid ${dead} (started earlier, ralph run)`,
    ]);
    expect(await lockJson(dir)).toMatchObject({ pid: process.pid });
    expect(await readdir(dir)).toEqual(['.ralph.lock']);
    await lock.release();
  });

  it('records which process holds the pid, and takes over when that pid was reused', async () => {
    const dir = await tempDir();
    const startOf = (pid: number) => (pid === process.pid ? 'boot:500' : undefined);
    const first = await acquireLock(dir, { ...mine, processStartOf: startOf });
    expect(await lockJson(dir)).toMatchObject({ pid: process.pid, processStart: 'boot:500' });
    await first.release();
    // The pid is alive, but its process started later than the one that took the lock.
    await plantLock(dir, {
      pid: process.pid,
      hostname: hostname(),
      command: 'ralph run .ralph/x',
      startedAt: 'earlier',
      processStart: 'boot:400',
    });
    expect(await readLock(dir, { processStartOf: startOf })).toMatchObject({
      alive: false,
      pidReused: true,
    });
    const lock = await acquireLock(dir, { ...mine, processStartOf: startOf });
    expect(lock.warnings).toEqual([
      `took over a stale lock left by pid ${process.pid} (started earlier, ralph run .ralph/x; that pid now belongs to another process)`,
    ]);
    await lock.release();
  });

  it('takes over a holder file that is not a valid lock', async () => {
    for (const garbage of ['', '{"pid": "x"', '{"pid": -1}', 'null']) {
      const dir = await tempDir();
      await plantLock(dir, garbage);
      const lock = await acquireLock(dir, mine);
      expect(lock.warnings).toEqual([expect.stringContaining('took over an unreadable lock')]);
      expect(await lockJson(dir)).toMatchObject({ pid: process.pid });
      await lock.release();
    }
  });

  it('takes over a plain file or stray entries where the lock folder should be', async () => {
    const withFile = await tempDir();
    await writeFile(join(withFile, '.ralph.lock'), JSON.stringify({ pid: process.pid }));
    const first = await acquireLock(withFile, mine);
    expect(first.warnings).toEqual([expect.stringContaining('took over an unreadable lock')]);
    await first.release();

    const withStray = await tempDir();
    await plantLock(withStray, 'junk', '.DS_Store');
    const second = await acquireLock(withStray, mine);
    expect(second.warnings).toHaveLength(1);
    expect(await lockJson(withStray)).toMatchObject({ pid: process.pid });
    await second.release();
    expect(await readdir(withStray)).toEqual([]);
  });

  it('reuses, silently, an empty lock folder left by a crash', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, '.ralph.lock'));
    const lock = await acquireLock(dir, mine);
    expect(lock.warnings).toEqual([]);
    await lock.release();
  });

  it('lets exactly one of many concurrent acquires win', async () => {
    const dir = await tempDir();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => acquireLock(dir, { ...mine, command: `run ${i}` })),
    );
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost.map((result) => (result.reason as RalphError).code)).toEqual(
      Array<string>(7).fill('LOCKED'),
    );
    expect(await readdir(dir)).toEqual(['.ralph.lock']);
  });

  it('lets exactly one of many concurrent takeovers of a stale lock win', async () => {
    for (let round = 0; round < 5; round++) {
      const dir = await tempDir();
      const stale = { pid: 999_999, hostname: hostname(), command: 'old', startedAt: 'then' };
      await plantLock(dir, stale);
      // Distinct live holders, so a racer that finds a fresh lock is refused rather than waved on.
      const isAlive = (pid: number) => pid !== stale.pid;
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => acquireLock(dir, { ...mine, pid: 2000 + i, isAlive })),
      );
      const won = results.flatMap((result) =>
        result.status === 'fulfilled' ? [result.value] : [],
      );
      expect(won).toHaveLength(1);
      expect(await lockJson(dir)).toMatchObject({ pid: won[0]?.holder.pid });
      expect(await readdir(dir)).toEqual(['.ralph.lock']);
    }
  });

  it('assumes a lock from another host is alive (its pid cannot be checked here)', async () => {
    const dir = await tempDir();
    const remote = { pid: 42, hostname: 'elsewhere', command: 'ralph run', startedAt: 'then' };
    await plantLock(dir, remote);
    const error = await failure(acquireLock(dir, { ...mine, isAlive: () => false }));
    expect(error.code).toBe('LOCKED');
    expect(error.message).toContain('on host elsewhere');
    expect(error.hint).toContain(join(dir, '.ralph.lock'));
  });

  it('release leaves a lock that is no longer ours', async () => {
    const dir = await tempDir();
    const lock = await acquireLock(dir, mine);
    // As if another ralph had judged us dead and taken over.
    await rm(join(dir, '.ralph.lock'), { recursive: true });
    await plantLock(dir, { pid: 7, hostname: 'h', command: 'c', startedAt: 's' });
    await lock.release();
    expect(await lockJson(dir)).toMatchObject({ pid: 7 });
  });

  it('fails clearly when the loop directory does not exist', async () => {
    const dir = join(await tempDir(), 'missing');
    await expect(acquireLock(dir, mine)).rejects.toMatchObject({ code: 'LOOP_DIR_NOT_FOUND' });
  });
});

describe('readLock', () => {
  it('returns undefined when the directory is not locked', async () => {
    expect(await readLock(await tempDir())).toBeUndefined();
  });

  it('reports the holder and whether it is alive', async () => {
    const dir = await tempDir();
    const lock = await acquireLock(dir, mine);
    expect(await readLock(dir)).toEqual({
      path: join(dir, '.ralph.lock'),
      holder: lock.holder,
      alive: true,
      pidReused: false,
    });
    expect((await readLock(dir, { isAlive: () => false }))?.alive).toBe(false);
    await lock.release();
  });

  it('reports an unreadable lock as not alive and without a holder', async () => {
    const dir = await tempDir();
    await plantLock(dir, 'garbage');
    expect(await readLock(dir)).toMatchObject({ holder: undefined, alive: false });
  });
});
