import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as Library from '../../../src/index.js';
import { finishedRun } from '../run/agent-stream.js';
import { createFakeLoop, passing, prdText, story, type FakeLoop } from '../run/fake-loop.js';

// The built package entry (see two-runs.test.ts).
const DIST_INDEX = resolve(import.meta.dirname, '../../../dist/index.js');
const { startRun } = (await import(pathToFileURL(DIST_INDEX).href)) as typeof Library;

/**
 * What a library caller's own code does wrong must not leave a loop directory saying RUNNING for
 * a run that is over, nor break the run for a mistake in a reporter.
 */

async function oneStoryLoop(): Promise<FakeLoop> {
  const stories = [story(1)];
  const loop = await createFakeLoop(stories);
  await loop.agent(1, {
    taskList: prdText(passing(stories, 'STORY-001')),
    jsonl: finishedRun('s-1', 'Done. <promise>COMPLETE</promise>', 0.1),
  });
  return loop;
}

const statusOf = async (loop: FakeLoop) =>
  JSON.parse(await readFile(join(loop.dir, 'status.json'), 'utf8')) as {
    state: string;
    exitReason?: string;
  };

describe('startRun with a caller whose code fails', () => {
  it('a reporter that throws is cut off and said in the log; the run completes', async () => {
    const loop = await oneStoryLoop();
    const logged: string[] = [];
    const result = await startRun({
      dir: loop.dir,
      cwd: loop.repo,
      env: loop.env,
      notify: false,
      reporters: [
        {
          onEvent(event) {
            if (event.type === 'iteration_started') throw new Error('reporter-boom');
          },
        },
      ],
      log: (line) => logged.push(line),
    });
    expect(result).toMatchObject({ status: 'COMPLETE', exitCode: 0 });
    expect(logged.join('\n')).toContain('reporter 1 failed on iteration_started (reporter-boom)');
    expect((await statusOf(loop)).state).toBe('COMPLETE');
  });

  it('an adapter that throws: startRun rejects, the files say ERROR, the lock is free', async () => {
    const loop = await oneStoryLoop();
    const adapter = {
      id: 'claude',
      probe: () => Promise.resolve({ ok: true }),
      commandLine: () => ({ command: 'none', args: [] }),
      run: () => Promise.reject(new Error('adapter-boom')),
    } as unknown as Library.AgentAdapter;
    const options = { dir: loop.dir, cwd: loop.repo, env: loop.env, notify: false };
    await expect(startRun({ ...options, skipPreflight: true, agent: { adapter } })).rejects.toThrow(
      'adapter-boom',
    );
    const status = await statusOf(loop);
    expect(status.state).toBe('ERROR');
    expect(status.exitReason).toContain('adapter-boom');
    const events = await loop.events();
    expect(events.at(-1)).toMatchObject({
      type: 'run_finished',
      state: 'ERROR',
      stopReason: 'fatal',
    });
    // The lock went with the failed run: the next one starts (and resumes) at once.
    expect(await startRun(options)).toMatchObject({ status: 'COMPLETE' });
  });

  it('a signal aborted before the start changes nothing on disk', async () => {
    const loop = await oneStoryLoop();
    const done = await startRun({ dir: loop.dir, cwd: loop.repo, env: loop.env, notify: false });
    expect(done.status).toBe('COMPLETE');
    const before = await readFile(join(loop.dir, 'status.json'), 'utf8');
    const paused = await startRun({
      dir: loop.dir,
      cwd: loop.repo,
      env: loop.env,
      signal: AbortSignal.abort(),
    });
    expect(paused).toMatchObject({ status: 'PAUSED', exitCode: 130, iterations: 1 });
    expect(await readFile(join(loop.dir, 'status.json'), 'utf8')).toBe(before);
  });
});
