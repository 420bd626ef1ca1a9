import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../state/lock.js';
import { listLoops } from './loops.js';

let repo: string;
const LIVE_PID = 4242;
const DEAD_PID = 4343;
const isAlive = (pid: number): boolean => pid === LIVE_PID;

async function loopDir(path: string, files: Record<string, unknown>): Promise<string> {
  const dir = join(repo, path);
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await writeFile(
      join(dir, name),
      typeof content === 'string' ? content : JSON.stringify(content),
    );
  }
  return dir;
}

function status(state: string, pid: number) {
  return {
    schemaVersion: 1,
    state,
    pid,
    startedAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:05:00.000Z',
    iteration: 3,
    maxIterations: 10,
    storiesTotal: 4,
    storiesPassing: 2,
    costUsd: 1.5,
  };
}

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'ralph-loops-'));
  const running = await loopDir('.ralph/running', { 'status.json': status('RUNNING', LIVE_PID) });
  await acquireLock(running, {
    pid: LIVE_PID,
    command: 'ralph run',
    now: new Date(),
    hostname: hostname(),
  });
  const orphan = await loopDir('.ralph/orphan', { 'status.json': status('RUNNING', DEAD_PID) });
  await acquireLock(orphan, {
    pid: DEAD_PID,
    command: 'ralph run',
    now: new Date(),
    hostname: hostname(),
  });
  await loopDir('.ralph/crashed-without-lock', { 'status.json': status('RUNNING', DEAD_PID) });
  await loopDir('.ralph/paused', { 'status.json': status('PAUSED', DEAD_PID) });
  await loopDir('.ralph/done', { 'status.json': status('COMPLETE', DEAD_PID) });
  // A run that has just taken the lock and not yet written its status: RUNNING, not PAUSED.
  const starting = await loopDir('.ralph/starting', { 'status.json': status('PAUSED', DEAD_PID) });
  await acquireLock(starting, {
    pid: LIVE_PID,
    command: 'ralph run',
    now: new Date(),
    hostname: hostname(),
  });
  // Held by a run on another machine: alive as far as anyone here can tell, and not ours to signal.
  const remote = await loopDir('.ralph/remote', { 'status.json': status('RUNNING', LIVE_PID) });
  await acquireLock(remote, {
    pid: DEAD_PID,
    command: 'ralph run',
    now: new Date(),
    hostname: 'other-host',
  });
  await loopDir('.ralph/fresh', { 'prd.json': '{"userStories":[]}' });
  await loopDir('.ralph/broken', { 'status.json': '{nope' });
  await loopDir('.ralph/not-a-loop', { 'notes.txt': 'hello' });
  await loopDir('.ralph/.hidden', { 'prd.json': '{}' });
  await writeFile(join(repo, '.ralph', 'config.yaml'), 'maxIterations: 3\n');
  await loopDir('.claude/data/ralph-loops/legacy', { 'feature_list.json': '[]' });
  await loopDir('elsewhere/mine', { 'status.json': status('ERROR', DEAD_PID) });
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('listLoops', () => {
  it('finds the loop directories of the repo and tells their state', async () => {
    const loops = await listLoops({
      repoRoot: repo,
      dirs: [join(repo, 'elsewhere/mine')],
      isAlive,
    });
    expect(loops.map((loop) => [loop.id, loop.state, loop.pid])).toEqual([
      ['.ralph/broken', 'NEW', undefined],
      ['.ralph/crashed-without-lock', 'ORPHANED', DEAD_PID],
      ['.ralph/done', 'COMPLETE', undefined],
      ['.ralph/fresh', 'NEW', undefined],
      ['.ralph/orphan', 'ORPHANED', DEAD_PID],
      ['.ralph/paused', 'PAUSED', undefined],
      ['.ralph/remote', 'RUNNING', DEAD_PID],
      ['.ralph/running', 'RUNNING', LIVE_PID],
      ['.ralph/starting', 'RUNNING', LIVE_PID],
      ['.claude/data/ralph-loops/legacy', 'NEW', undefined],
      ['elsewhere/mine', 'ERROR', undefined],
    ]);
  });

  it('says which host holds a loop that runs elsewhere', async () => {
    const loops = await listLoops({ repoRoot: repo, dirs: [], isAlive });
    expect(loops.find((loop) => loop.id === '.ralph/remote')?.host).toBe('other-host');
    expect(loops.find((loop) => loop.id === '.ralph/running')?.host).toBeUndefined();
  });

  it('carries the numbers of status.json, and says when it could not read it', async () => {
    const loops = await listLoops({ repoRoot: repo, dirs: [], isAlive });
    expect(loops.find((loop) => loop.id === '.ralph/paused')).toMatchObject({
      iteration: 3,
      maxIterations: 10,
      storiesPassing: 2,
      storiesTotal: 4,
      costUsd: 1.5,
    });
    expect(loops.find((loop) => loop.id === '.ralph/broken')?.problem).toContain('not valid JSON');
  });

  it('lists a named directory once, and only named ones without a repo', async () => {
    const loops = await listLoops({
      repoRoot: undefined,
      dirs: [join(repo, '.ralph/done'), join(repo, '.ralph/done')],
      isAlive,
    });
    expect(loops.map((loop) => loop.state)).toEqual(['COMPLETE']);
  });
});
