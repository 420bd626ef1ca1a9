import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../state/lock.js';
import { watchLiveness, withLiveness } from './liveness.js';
import { initialView, type MonitorView } from './view/reducer.js';

const running: MonitorView = {
  ...initialView(),
  state: 'RUNNING',
  startedAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:05:00.000Z',
};

describe('withLiveness', () => {
  it('shows a RUNNING view without a live process as ORPHANED, its clock stopped', () => {
    expect(withLiveness(running, true)).toBe(running);
    expect(withLiveness(running, false)).toMatchObject({
      state: 'ORPHANED',
      finishedAt: '2026-11-22T10:05:00.000Z',
      exitReason: expect.stringContaining('`ralph run` resumes it') as unknown,
    });
  });

  it('leaves every other state alone', () => {
    const paused: MonitorView = { ...running, state: 'PAUSED' };
    expect(withLiveness(paused, false)).toBe(paused);
  });
});

describe('watchLiveness', () => {
  it('reports when the lock holder goes away', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-liveness-'));
    const lock = await acquireLock(dir, { pid: process.pid, command: 'test', now: new Date() });
    const seen: boolean[] = [];
    const stop = watchLiveness(dir, (alive) => seen.push(alive), 20);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([]); // alive is assumed at first: no change to report
    await lock.release();
    for (let i = 0; i < 100 && seen.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([false]);
    stop();
  });
});
