import { mkdtemp, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../core/events.js';
import { hybridFields, statusFileReporter } from './status-file.js';

const AT = '2026-11-23T00:00:00.000Z';

const started: LoopEvent = {
  type: 'run_started',
  at: AT,
  loopDir: '.ralph/x',
  feature: 'x',
  resumedAfterIteration: 0,
  iteration: 0,
  maxIterations: 5,
  storiesTotal: 1,
  storiesPassing: 0,
  costUsd: 0,
};

const finished: LoopEvent = {
  type: 'run_finished',
  at: AT,
  state: 'REACHED_LIMIT',
  reason: 'max iterations',
  exitCode: 1,
  iterations: 1,
  storiesPassing: 0,
  storiesTotal: 1,
  costUsd: 0,
};

describe('statusFileReporter', () => {
  it('writes status.json, and refuses once the loop folder was swapped for a link to another', async () => {
    const loopDir = await mkdtemp(join(tmpdir(), 'ralph-status-file-'));
    const victimDir = await mkdtemp(join(tmpdir(), 'ralph-victim-'));
    await writeFile(join(victimDir, 'status.json'), '{"someone":"else"}\n');
    const reporter = statusFileReporter(loopDir, 42);
    await reporter.onEvent(started);
    expect(JSON.parse(await readFile(join(loopDir, 'status.json'), 'utf8'))).toMatchObject({
      state: 'RUNNING',
      pid: 42,
    });
    await rename(loopDir, `${loopDir}-moved`);
    await symlink(victimDir, loopDir);
    await expect(reporter.onEvent(finished)).rejects.toMatchObject({
      code: 'UNSAFE_FILE',
      message: expect.stringContaining('not the folder ralph started with') as unknown,
    });
    expect(await readdir(victimDir)).toEqual(['status.json']);
    expect(await readFile(join(victimDir, 'status.json'), 'utf8')).toBe('{"someone":"else"}\n');
  });

  it("writes the Ralph Hybrid spec's field names beside ralph's own", async () => {
    const loopDir = await mkdtemp(join(tmpdir(), 'ralph-status-file-'));
    const reporter = statusFileReporter(loopDir, 42);
    await reporter.onEvent({ ...started, rateLimit: { callsPerHour: 100 } });
    const written = JSON.parse(await readFile(join(loopDir, 'status.json'), 'utf8')) as unknown;
    expect(written).toMatchObject({
      iteration: 0,
      maxIterations: 5,
      feature: 'x',
      storiesTotal: 1,
      startedAt: AT,
      state: 'RUNNING',
      status: 'RUNNING',
      storiesPassing: 0,
      storiesComplete: 0,
      updatedAt: AT,
      lastUpdated: AT,
      apiCallsLimit: 100,
    });
    expect(written).not.toHaveProperty('rateLimitResetsAt');
  });

  it('maps calls in the last hour and a rate-limit wait to apiCallsUsed and rateLimitResetsAt', () => {
    const fields = hybridFields({
      schemaVersion: 1,
      state: 'RUNNING',
      startedAt: AT,
      updatedAt: AT,
      iteration: 5,
      maxIterations: 20,
      storiesTotal: 6,
      storiesPassing: 2,
      rateLimit: { callsLastHour: 45, callsPerHour: 100 },
      waiting: {
        reason: 'rate_limit',
        since: AT,
        until: '2026-11-23T01:00:00.000Z',
        remainingSeconds: 3600,
        detail: '100 calls in the last hour',
      },
    });
    expect(fields).toEqual({
      status: 'RUNNING',
      storiesComplete: 2,
      lastUpdated: AT,
      apiCallsUsed: 45,
      apiCallsLimit: 100,
      rateLimitResetsAt: '2026-11-23T01:00:00.000Z',
    });
  });
});
