import { mkdir, mkdtemp, readFile, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cancelSessionLoops, listSessionLoops, newLoopId, startSessionLoop } from './loops.js';
import { sessionLoopPaths } from './paths.js';
import { parseSessionLoopFile, serialiseSessionLoopFile } from './state-file.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

async function project(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'ralph-loops-'));
}

describe('startLoop', () => {
  it('writes the state file with the prompt verbatim, and the journal', async () => {
    const dir = await project();
    const prompt = 'Fix "it".\n---\niteration: 9\n---\n';
    const started = await startSessionLoop({
      projectDir: dir,
      prompt,
      maxIterations: 10,
      completionPromise: '  ALL   DONE ',
      now: NOW,
    });
    expect(started.id).toMatch(/^[a-z0-9]{8}$/);
    const parsed = parseSessionLoopFile(await readFile(started.statePath, 'utf8'));
    expect(parsed).toEqual({
      ok: true,
      file: {
        state: {
          loop_id: started.id,
          session_id: '',
          active: true,
          iteration: 1,
          max_iterations: 10,
          completion_promise: 'ALL DONE',
          started_at: NOW.toISOString(),
        },
        body: prompt,
      },
    });
    const journal = await readFile(started.journalPath, 'utf8');
    expect(journal).toContain(`# Ralph Loop Journal - ${started.id}`);
    expect(journal).toContain(`Started: ${NOW.toISOString()}`);
    expect(started.warnings.join()).toMatch(/never mentions the promise/);
  });

  it('refuses prompts and promises that cannot be stored', async () => {
    const dir = await project();
    const base = { projectDir: dir, maxIterations: 0, completionPromise: undefined, now: NOW };
    await expect(startSessionLoop({ ...base, prompt: '  \n' })).rejects.toThrow(/empty/);
    await expect(startSessionLoop({ ...base, prompt: 'a\u0000b' })).rejects.toThrow(/NUL/);
    await expect(startSessionLoop({ ...base, prompt: 'x'.repeat(100_001) })).rejects.toThrow(
      /limit/,
    );
    await expect(
      startSessionLoop({ ...base, prompt: 'p', completionPromise: ' ' }),
    ).rejects.toThrow(/empty/);
    await expect(startSessionLoop({ ...base, prompt: 'p', maxIterations: -1 })).rejects.toThrow(
      /max-iterations/,
    );
    // Checked before anything is written: not even .claude/ is created.
    expect(await readdir(dir)).toEqual([]);
  });

  it('makes distinct ids', () => {
    const ids = new Set(Array.from({ length: 200 }, () => newLoopId()));
    expect(ids.size).toBe(200);
  });
});

describe('listLoops', () => {
  it('tells ACTIVE, UNCLAIMED, ORPHANED, INACTIVE, CORRUPT and REFUSED apart', async () => {
    const dir = await project();
    const paths = sessionLoopPaths(dir);
    await mkdir(paths.claudeDir);
    const write = async (id: string, session: string, minutesAgo: number, active = true) => {
      const state = {
        loop_id: id,
        session_id: session,
        active,
        iteration: 2,
        max_iterations: 5,
        completion_promise: 'DONE',
        started_at: '2026-03-01T00:00:00.000Z',
      };
      await writeFile(paths.state(id), serialiseSessionLoopFile({ state, body: 'p' }));
      const at = new Date(NOW.getTime() - minutesAgo * 60_000);
      await utimes(paths.state(id), at, at);
    };
    await write('active01', 'sess-1', 5);
    await write('unclaim1', '', 5);
    await write('orphan01', 'sess-2', 90);
    await write('orphan02', '', 90);
    await write('inactiv1', 'sess-3', 5, false);
    await writeFile(paths.state('corrupt1'), 'no front matter');
    await symlink('/etc/hostname', paths.state('symlink1'));
    // A claimed loop whose transcript is fresh is ACTIVE though its state file is old.
    const transcript = join(dir, 't.jsonl');
    await writeFile(transcript, '');
    await utimes(transcript, NOW, NOW);
    const alive = serialiseSessionLoopFile({
      state: {
        loop_id: 'alive001',
        session_id: 'sess-4',
        active: true,
        iteration: 1,
        max_iterations: 0,
        completion_promise: null,
        started_at: '2026-03-01T00:00:00.000Z',
        transcript_path: transcript,
      },
      body: 'p',
    });
    await writeFile(paths.state('alive001'), alive);
    const old = new Date(NOW.getTime() - 300 * 60_000);
    await utimes(paths.state('alive001'), old, old);

    const loops = await listSessionLoops({ projectDir: dir, now: NOW, orphanedAfterMinutes: 60 });
    expect(Object.fromEntries(loops.map((loop) => [loop.id, loop.status]))).toEqual({
      active01: 'ACTIVE',
      alive001: 'ACTIVE',
      unclaim1: 'UNCLAIMED',
      orphan01: 'ORPHANED',
      orphan02: 'ORPHANED',
      inactiv1: 'INACTIVE',
      corrupt1: 'CORRUPT',
      symlink1: 'REFUSED',
    });
    expect(loops.find((loop) => loop.id === 'active01')).toMatchObject({
      sessionId: 'sess-1',
      iteration: 2,
      maxIterations: 5,
      completionPromise: 'DONE',
      problem: null,
    });
    expect(loops.find((loop) => loop.id === 'corrupt1')?.problem).toMatch(/no front matter/);
  });
});

describe('cancelLoops', () => {
  async function twoLoops(): Promise<{ dir: string; ids: string[] }> {
    const dir = await project();
    const ids = [];
    for (const prompt of ['one', 'two']) {
      const base = { projectDir: dir, maxIterations: 0, completionPromise: undefined, now: NOW };
      ids.push((await startSessionLoop({ ...base, prompt })).id);
    }
    return { dir, ids };
  }

  it('cancels one loop by id or unique prefix and notes it in the journal', async () => {
    const { dir, ids } = await twoLoops();
    const [first, second] = ids as [string, string];
    expect(
      await cancelSessionLoops({ projectDir: dir, ids: [first.slice(0, 8)], now: NOW }),
    ).toEqual([first]);
    const remaining = await listSessionLoops({
      projectDir: dir,
      now: NOW,
      orphanedAfterMinutes: 60,
    });
    expect(remaining.map((loop) => loop.id)).toEqual([second]);
    const journal = await readFile(sessionLoopPaths(dir).journal(first), 'utf8');
    expect(journal).toMatch(/Loop cancelled/);
  });

  it('cancels all, and names unknown ids', async () => {
    const { dir, ids } = await twoLoops();
    await expect(
      cancelSessionLoops({ projectDir: dir, ids: ['zzzzzzzz'], now: NOW }),
    ).rejects.toMatchObject({
      code: 'LOOP_NOT_FOUND',
    });
    expect((await cancelSessionLoops({ projectDir: dir, ids: 'all', now: NOW })).sort()).toEqual(
      [...ids].sort(),
    );
    expect(await listSessionLoops({ projectDir: dir, now: NOW, orphanedAfterMinutes: 60 })).toEqual(
      [],
    );
  });
});
