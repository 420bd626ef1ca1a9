import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun, initLine } from './agent-stream.js';
import {
  createFakeLoop,
  killAfterEach,
  expectFilesAgree,
  groupOf,
  hostPidOf,
  isRunning,
  livingGroupMembers,
  ofType,
  passing,
  prdText,
  story,
  waitFor,
  type FakeLoop,
} from './fake-loop.js';

/**
 * Stopping an agent: Ctrl+C (pause, then resume), a closed terminal (SIGHUP), the per-iteration
 * timeout, and a second `ralph run` racing the first. A hanging call of the fake starts a grandchild, records
 * "<its own pid> <grandchild pid>" in hang-N.pids, prints its init line and sleeps.
 */
function hanging(session: string, detach = ''): string {
  return [
    `${detach}sleep 20 &`,
    'pids="$FAKE_CLAUDE_SCRIPT_DIR/hang-$FAKE_CLAUDE_CALL.pids"',
    'echo "$PPID $!" > "$pids.tmp" && mv "$pids.tmp" "$pids"',
    `printf '%s\\n' '${initLine(session)}'`,
    'sleep 20',
  ].join('\n');
}

/**
 * The fake's pid, its process group (the fake itself, or the OS sandbox's outer process that
 * starts it) and its grandchild's, once the call hangs: on the host, though the fake records them
 * from inside the sandbox's pid namespace.
 */
async function hangingPids(
  loop: FakeLoop,
  call: number,
): Promise<{ agent: number; group: number; grandchild: number }> {
  const file = join(loop.scripts, `hang-${call}.pids`);
  await waitFor(`call ${call} to hang`, () => existsSync(file));
  const [inner, innerChild] = (await readFile(file, 'utf8')).trim().split(' ').map(Number);
  expect((await loop.argv(call)).pid).toBe(inner);
  const marker = `FAKE_CLAUDE_SCRIPT_DIR=${loop.scripts}`;
  const agent = await hostPidOf(inner!, marker);
  const grandchild = await hostPidOf(innerChild!, marker);
  const group = await groupOf(agent);
  hungGroups.push(group);
  return { agent, group, grandchild };
}

// A failed test must not leave a ralph or a hanging agent running into the next one.
const { started, groups: hungGroups } = killAfterEach();

describe('ralph run with a fake claude: stopping agents', () => {
  it('pauses on SIGINT (exit 130, agent tree gone) and resumes with iteration count and cost', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    await loop.agent(1, {
      taskList: prdText(passing(stories, 'STORY-001')),
      jsonl: finishedRun('session-1', '<promise>STORY_COMPLETE</promise>', 0.5),
    });
    await loop.agent(2, { sh: hanging('session-hang') });
    await loop.agent(3, {
      taskList: prdText(passing(stories, 'STORY-001', 'STORY-002')),
      jsonl: finishedRun('session-3', '<promise>COMPLETE</promise>', 0.25),
    });

    const first = loop.start(['run', '--pause', '0']);
    started.push(first);
    const { group, grandchild } = await hangingPids(loop, 2);
    expect(await isRunning(grandchild)).toBe(true);
    const signalled = Date.now();
    process.kill(first.pid, 'SIGINT');
    const stopped = await first.exited;
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
    expect(stopped.at - signalled).toBeLessThan(5000);
    expect(await livingGroupMembers(group)).toEqual([]);
    expect(await isRunning(grandchild)).toBe(false);

    expect(await loop.status()).toMatchObject({
      state: 'PAUSED',
      iteration: 2,
      storiesPassing: 1,
      costUsd: 0.5,
      exitReason: 'interrupted',
    });
    const paused = await loop.events();
    expect(ofType(paused, 'iteration_finished').map((each) => each.outcome)).toEqual([
      'progress',
      'canceled',
    ]);
    expect(paused.at(-1)).toMatchObject({
      type: 'run_finished',
      state: 'PAUSED',
      exitCode: 130,
      iterations: 2,
    });
    expect(existsSync(join(loop.dir, '.ralph.lock'))).toBe(false);

    const resumed = await loop.run(['run', '--pause', '0']);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('resuming after iteration 2');
    expect(await loop.calls()).toBe(3);
    expect((await loop.argv(3)).prompt).toContain('Work on **STORY-002:');
    expect(await loop.log(3)).toContain('session-3');
    expect(await loop.status()).toMatchObject({
      state: 'COMPLETE',
      iteration: 3,
      storiesPassing: 2,
      costUsd: 0.75,
      sessionId: 'session-3',
    });
    const events = await loop.events();
    expect(ofType(events, 'run_started').at(-1)).toMatchObject({
      resumedAfterIteration: 2,
      costUsd: 0.5,
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run_finished',
      state: 'COMPLETE',
      iterations: 3,
      costUsd: 0.75,
    });
    expect(await loop.progress()).toContain('resuming after iteration 2');
    await expectFilesAgree(loop);
  });

  it('-t kills an agent that runs too long (whole tree) and goes on with the next iteration', async () => {
    const loop = await createFakeLoop([story(1), story(2)]);
    await loop.agent(1, { sh: hanging('session-slow') });
    // Call 2 waits until the test has looked at what is left of call 1 (on the host: inside its
    // own sandbox, call 2 could not see call 1's processes at all).
    await loop.agent(2, {
      sh: 'while [ ! -f "$FAKE_CLAUDE_SCRIPT_DIR/looked" ]; do sleep 0.02; done',
      jsonl: finishedRun('session-2', 'Nothing changed.'),
    });

    // 0.02 minutes = 1.2 s.
    const running = loop.start(['run', '-t', '0.02', '-n', '2', '--pause', '0']);
    started.push(running);
    const { agent, grandchild } = await hangingPids(loop, 1);
    await waitFor('call 2 to start', async () => (await loop.calls()) >= 2);
    const survivors = await Promise.all(
      [agent, grandchild].map(async (pid) => `${pid} ${(await isRunning(pid)) ? 'alive' : 'gone'}`),
    );
    await writeFile(join(loop.scripts, 'looked'), '');
    const run = await running.exited;
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const finished = ofType(await loop.events(), 'iteration_finished');
    expect(finished.map((each) => each.outcome)).toEqual(['timeout', 'no_progress']);
    expect(finished[0]).toMatchObject({
      detail: 'no result within 1 s: agent killed',
      sessionId: 'session-slow',
    });
    expect(finished[0]?.durationMs).toBeGreaterThanOrEqual(1150);
    expect(finished[0]?.durationMs).toBeLessThan(10_000); // killed, not the agent's own end

    for (const line of survivors) expect(line).toMatch(/ gone$/);
    expect(await loop.status()).toMatchObject({ state: 'REACHED_LIMIT', iteration: 2 });
    await expectFilesAgree(loop);
  });

  it('on SIGHUP (terminal closed) stops the agent tree and leaves the run PAUSED, not RUNNING', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent(1, { sh: hanging('session-hup') });
    const first = loop.start(['run', '--pause', '0']);
    started.push(first);
    const { group, grandchild } = await hangingPids(loop, 1);
    const signalled = Date.now();
    process.kill(first.pid, 'SIGHUP');
    const stopped = await first.exited;
    expect(stopped.at - signalled).toBeLessThan(5000);
    // The agent must not outlive the ralph that supervised it (it would keep editing the repo).
    expect(await livingGroupMembers(group)).toEqual([]);
    expect(await isRunning(grandchild)).toBe(false);
    expect(await loop.status()).toMatchObject({ state: 'PAUSED', iteration: 1 });
    expect([129, 130]).toContain(stopped.code);
    expect(existsSync(join(loop.dir, '.ralph.lock'))).toBe(false);
  });

  it('on Ctrl+Z (SIGTSTP) stops the agent tree with ralph, and fg (SIGCONT) resumes both', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent(1, { sh: hanging('session-tstp') });
    const first = loop.start(['run', '--pause', '0']);
    started.push(first);
    const { agent, group, grandchild } = await hangingPids(loop, 1);
    process.kill(first.pid, 'SIGTSTP');
    await waitFor('ralph and its agent to stop', async () =>
      (await Promise.all([first.pid, agent, grandchild].map(processState))).every(
        (state) => state === 'T',
      ),
    );
    process.kill(first.pid, 'SIGCONT');
    await waitFor('both to run again', async () =>
      (await Promise.all([first.pid, agent, grandchild].map(processState))).every(
        (state) => state !== 'T',
      ),
    );
    process.kill(first.pid, 'SIGINT');
    expect((await first.exited).code).toBe(130);
    expect(await livingGroupMembers(group)).toEqual([]);
  });

  it('after ralph is SIGKILLed, its sandboxed agent tree dies with it, setsid children included', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent(1, { sh: hanging('session-sandboxed-orphan', 'setsid ') });
    const first = loop.start(['run', '--pause', '0']);
    started.push(first);
    const { agent, grandchild } = await hangingPids(loop, 1);
    expect(await isRunning(grandchild)).toBe(true);
    process.kill(first.pid, 'SIGKILL'); // no chance to stop anything
    await first.exited;
    // The pid namespace ends with its init, and the kernel kills everything left in it.
    await waitFor('the agent tree to go', async () =>
      (await Promise.all([agent, grandchild].map(isRunning))).every((alive) => !alive),
    );
  });

  it('after ralph is SIGKILLed without the sandbox, the next run stops what the dead run left running', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent(1, { sh: hanging('session-orphan') });
    await loop.agent(2, {
      taskList: prdText(passing([story(1)], 'STORY-001')),
      jsonl: finishedRun('session-2', '<promise>COMPLETE</promise>', 0.01),
    });
    const first = loop.start(['run', '--pause', '0', '--no-sandbox']);
    started.push(first);
    const { grandchild } = await hangingPids(loop, 1);
    process.kill(first.pid, 'SIGKILL'); // no chance to stop anything
    await first.exited;
    // The agent dies with ralph (parent death); what it started does not.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await isRunning(grandchild)).toBe(true);

    const next = await loop.run(['run', '--pause', '0', '--no-archive', '--no-sandbox']);
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(next.stdout).toMatch(
      /stopped \d+ process(es)? the dead run \(pid \d+\) had left running/,
    );
    await waitFor('the leftover to go', async () => !(await isRunning(grandchild)));
  });

  it('refuses a second ralph run on the same loop directory with the holder pid (exit 2)', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent(1, { sh: hanging('session-busy') });
    const first = loop.start(['run', '--pause', '0']);
    started.push(first);
    await hangingPids(loop, 1);

    const second = await loop.run(['run', '--pause', '0']);
    expect(second.code, second.stdout + second.stderr).toBe(2);
    expect(second.stderr).toContain(`is in use by pid ${first.pid}`);
    expect(await loop.calls()).toBe(1);
    // The refused run touched nothing the running one owns.
    expect(await loop.status()).toMatchObject({ state: 'RUNNING', pid: first.pid, iteration: 1 });
    expect(ofType(await loop.events(), 'run_started')).toHaveLength(1);

    process.kill(first.pid, 'SIGINT');
    expect((await first.exited).code).toBe(130);
    await expectFilesAgree(loop);
  });
});

/** The state letter of /proc/<pid>/stat: R, S, T (stopped), Z, …; '?' once the process is gone. */
async function processState(pid: number): Promise<string> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const end = stat.lastIndexOf(')');
  return end < 0 ? '?' : stat.slice(end + 2, end + 3);
}
