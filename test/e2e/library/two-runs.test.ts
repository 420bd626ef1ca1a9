import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as Library from '../../../src/index.js';
import type { LoopEvent, RunResult } from '../../../src/index.js';
import { finishedRun } from '../run/agent-stream.js';
import {
  createFakeLoop,
  hostPidOf,
  isRunning,
  passing,
  prdText,
  story,
  waitFor,
  type FakeLoop,
} from '../run/fake-loop.js';

// The built package entry, as `import … from 'ralph-run'` loads it (package.json "exports"); the
// types are the source's (dist/ does not exist before the build, when typecheck runs).
const DIST_INDEX = resolve(import.meta.dirname, '../../../dist/index.js');
const { RalphError, startRun } = (await import(pathToFileURL(DIST_INDEX).href)) as typeof Library;

/**
 * Many runs in one process (design.md §7): two startRun at once, each with its own loop
 * directory, fake agent, guard service and lock, in this test's process; aborting one stops only
 * its agent's process tree.
 */

async function completingLoop(): Promise<FakeLoop> {
  const stories = [story(1), story(2)];
  const loop = await createFakeLoop(stories);
  await loop.agent(1, {
    taskList: prdText(passing(stories, 'STORY-001')),
    jsonl: finishedRun('s-1', 'STORY-001 done. <promise>STORY_COMPLETE</promise>', 0.1),
  });
  await loop.agent(2, {
    // Slow enough that the other run's abort happens while this one is still working.
    sh: 'sleep 1',
    taskList: prdText(passing(stories, 'STORY-001', 'STORY-002')),
    jsonl: finishedRun('s-2', 'All done. <promise>COMPLETE</promise>', 0.1),
  });
  return loop;
}

function run(loop: FakeLoop, signal?: AbortSignal): Promise<RunResult> {
  return startRun({
    dir: loop.dir,
    cwd: loop.repo,
    env: loop.env,
    pauseSeconds: 0,
    notify: false,
    ...(signal === undefined ? {} : { signal }),
  });
}

describe('startRun: many runs in one process', () => {
  it('runs two loops at once to COMPLETE, each with its own files', async () => {
    const [first, second] = await Promise.all([completingLoop(), completingLoop()]);
    const events: LoopEvent[] = [];
    const [a, b] = await Promise.all([
      run(first),
      startRun({
        dir: second.dir,
        cwd: second.repo,
        env: second.env,
        pauseSeconds: 0,
        notify: false,
        reporters: [{ onEvent: (event) => void events.push(event) }],
      }),
    ]);
    for (const [result, loop] of [
      [a, first],
      [b, second],
    ] as const) {
      expect(result).toMatchObject({
        status: 'COMPLETE',
        stopReason: 'complete',
        exitCode: 0,
        iterations: 2,
        loopDir: loop.dir,
      });
      expect(result.costUsd).toBeCloseTo(0.2, 9);
      expect(await loop.calls()).toBe(2);
      expect((await loop.status()).state).toBe('COMPLETE');
    }
    expect(a.runId).not.toBe(b.runId);
    expect(events.map((event) => event.type)).toContain('run_finished');
    expect(events[0]).toMatchObject({ type: 'run_started', loopDir: second.dir });
  });

  it('aborting one run pauses it with its agent tree gone; the other completes untouched', async () => {
    const survivor = await completingLoop();
    const stopped = await createFakeLoop([story(1)]);
    const pidFile = join(stopped.scripts, 'grandchild.pid');
    // The agent starts a grandchild (a dev server, say) and works on and on.
    await stopped.agent(1, { sh: `sleep 120 & echo $! > '${pidFile}'; sleep 120` });
    const controller = new AbortController();
    const pausing = run(stopped, controller.signal);
    const completing = run(survivor);
    await waitFor('the agent to start its grandchild', async () => {
      const text = await readFile(pidFile, 'utf8').catch(() => '');
      return text.trim() !== '';
    });
    // Recorded inside the sandbox's pid namespace: the same process on the host.
    const grandchild = await hostPidOf(
      Number((await readFile(pidFile, 'utf8')).trim()),
      `FAKE_CLAUDE_SCRIPT_DIR=${stopped.scripts}`,
    );
    expect(await isRunning(grandchild)).toBe(true);
    const abortedAt = Date.now();
    controller.abort();
    const paused = await pausing;
    const pauseMs = Date.now() - abortedAt;
    expect(paused).toMatchObject({ status: 'PAUSED', stopReason: 'interrupted', exitCode: 130 });
    // SIGTERM, then SIGKILL after Claude's 4 s grace: far below the agent's 120 s.
    expect(pauseMs).toBeLessThan(15_000);
    console.log(`abort → PAUSED in ${pauseMs} ms`);
    await waitFor('the grandchild to be gone', async () => !(await isRunning(grandchild)));
    expect((await stopped.status()).state).toBe('PAUSED');

    const done = await completing;
    expect(done).toMatchObject({ status: 'COMPLETE', exitCode: 0, iterations: 2 });
    expect(await survivor.calls()).toBe(2);
    // It was still working when the other was aborted: the abort did not reach it.
    const finished = (await survivor.events()).find((event) => event.type === 'run_finished');
    expect(Date.parse(String(finished?.at))).toBeGreaterThan(abortedAt);
  });

  it('refuses a misspelt option by name, before anything starts', async () => {
    const loop = await completingLoop();
    await expect(
      startRun({ dir: loop.dir, cwd: loop.repo, env: loop.env, maxIteration: 3 } as never),
    ).rejects.toThrow(/unknown option maxIteration/);
    const error: unknown = await startRun({
      dir: loop.dir,
      cwd: loop.repo,
      env: loop.env,
      maxIterations: 0,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RalphError);
    expect((error as Library.RalphError).code).toBe('USAGE');
    expect((error as Library.RalphError).message).toContain('maxIterations');
    expect(await loop.calls()).toBe(0);
  });
});
