import { lstat, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import { readStatus, statusSchema, writeStatus } from './status.js';
import type { Status } from './status.js';

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-status-'));
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

const running: Status = {
  schemaVersion: 1,
  state: 'RUNNING',
  pid: 4242,
  startedAt: '2025-01-02T03:04:05.000Z',
  updatedAt: '2025-01-02T03:14:05.000Z',
  iteration: 3,
  maxIterations: 20,
  currentStory: { id: 'STORY-002', title: 'Login form', model: 'sonnet' },
  storiesTotal: 6,
  storiesPassing: 2,
  lastResult: 'story complete',
  costUsd: 0.42,
};

describe('status.json', () => {
  it('is undefined before any run wrote it', async () => {
    expect(await readStatus(await tempDir())).toBeUndefined();
  });

  it('round-trips as pretty JSON with a final newline, atomically', async () => {
    const dir = await tempDir();
    await writeStatus(dir, running);
    const text = await readFile(join(dir, 'status.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify(running, null, 2)}\n`);
    expect(await readStatus(dir)).toEqual(running);
    expect(await readdir(dir)).toEqual(['status.json']);
  });

  it('replaces a status.json the agent linked to a file outside, never writing through the link', async () => {
    const dir = await tempDir();
    const victim = join(await tempDir(), '.bashrc');
    await writeFile(victim, 'export A=1\n');
    await symlink(victim, join(dir, 'status.json'));
    await writeStatus(dir, running);
    expect(await readFile(victim, 'utf8')).toBe('export A=1\n');
    expect((await lstat(join(dir, 'status.json'))).isFile()).toBe(true);
    expect(await readStatus(dir)).toEqual(running);
  });

  it('accepts the minimal status and keeps fields added by later versions', async () => {
    const dir = await tempDir();
    const minimal = {
      schemaVersion: 1,
      state: 'PAUSED',
      startedAt: '2025-01-02T03:04:05Z',
      updatedAt: '2025-01-02T03:04:05+02:00',
      iteration: 0,
      maxIterations: 5,
      storiesTotal: 0,
      storiesPassing: 0,
      rateLimit: { used: 3 },
      currentStory: { id: 'F-1', title: 't', category: 'ui' },
    };
    await writeFile(join(dir, 'status.json'), JSON.stringify(minimal));
    expect(await readStatus(dir)).toEqual(minimal);
  });

  it('reports a corrupt file with its name and leaves it untouched', async () => {
    const dir = await tempDir();
    const file = join(dir, 'status.json');
    await writeFile(file, '{"schemaVersion": 1, "sta');
    const error = await failure(readStatus(dir));
    expect(error.code).toBe('INVALID_JSON');
    expect(error.message).toContain(file);
    expect(error.location).toEqual({ file });
    expect(await readFile(file, 'utf8')).toBe('{"schemaVersion": 1, "sta');
  });

  it('reports a wrong field by its path', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'status.json'), JSON.stringify({ ...running, state: 'DONE' }));
    await expect(readStatus(dir)).rejects.toMatchObject({
      code: 'INVALID_JSON',
      location: { field: 'state' },
    });
  });

  it('tells a file from a newer ralph apart', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'status.json'), JSON.stringify({ ...running, schemaVersion: 2 }));
    const error = await failure(readStatus(dir));
    expect(error.code).toBe('INVALID_JSON');
    expect(error.hint).toContain('newer ralph');
  });

  it('refuses to write an invalid status (a bug in the writer)', async () => {
    const dir = await tempDir();
    await expect(writeStatus(dir, { ...running, iteration: -1 })).rejects.toThrow();
    expect(await readdir(dir)).toEqual([]);
  });

  it('validates timestamps as ISO 8601', () => {
    expect(statusSchema.safeParse({ ...running, startedAt: 'yesterday' }).success).toBe(false);
  });
});
