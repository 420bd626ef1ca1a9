import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun, initLine, toolUseLine } from '../run/agent-stream.js';
import {
  createFakeLoop,
  killAfterEach,
  livingGroupMembers,
  ofType,
  passing,
  prdText,
  story,
  waitFor,
  type FakeLoop,
} from '../run/fake-loop.js';

/**
 * A loop started in one process and watched and steered from others, all through the built
 * binary: `run --detach`, `list`, `attach`, `stop`, `logs`, and a killed run that shows
 * ORPHANED and resumes.
 */

const STORIES = [story(1), story(2), story(3)];

/** A call that waits for `go` before it prints a tool call, then hangs until it is stopped. */
function liveThenHang(session: string): string {
  const line = (text: string) => `printf '%s\\n' '${text}'`;
  return [
    line(initLine(session)),
    'while [ ! -f "$FAKE_CLAUDE_SCRIPT_DIR/go" ]; do sleep 0.02; done',
    line(toolUseLine(session, 'toolu_live', 'Write', { file_path: 'src/live.ts', content: 'x' })),
    'sleep 30',
  ].join('\n');
}

const { started, groups } = killAfterEach();

async function listed(
  loop: FakeLoop,
): Promise<{ state: string; pid?: number; iteration?: number }> {
  const result = await loop.run(['list', '--json']);
  expect(result.code).toBe(0);
  const { loops } = JSON.parse(result.stdout) as {
    loops: { id: string; state: string; pid?: number }[];
  };
  const mine = loops.find((each) => each.id === '.ralph/feature-fake-loop');
  if (mine === undefined) throw new Error(`loop not listed: ${result.stdout}`);
  return mine;
}

/** Points the loop's lock at `pid`, as if the dead holder's pid had been given to that process. */
async function reuseLockPid(loop: FakeLoop, pid: number): Promise<void> {
  const lockDir = join(loop.dir, '.ralph.lock');
  const [name] = await readdir(lockDir);
  const file = join(lockDir, name ?? 'missing');
  const holder = JSON.parse(await readFile(file, 'utf8')) as { processStart?: string };
  expect(holder.processStart).toBeDefined(); // the dead ralph's, which `pid` does not have
  await writeFile(file, JSON.stringify({ ...holder, pid }));
}

describe('background runs', () => {
  it('detach → list RUNNING → attach sees live events → stop → list PAUSED → run resumes', async () => {
    const loop = await createFakeLoop(STORIES);
    await loop.agent(1, {
      taskList: prdText(passing(STORIES, 'STORY-001')),
      jsonl: finishedRun('s-one', 'done <promise>STORY_COMPLETE</promise>', 0.02),
    });
    await loop.agent(2, { sh: liveThenHang('s-two') });
    await loop.agent(3, {
      taskList: prdText(passing(STORIES, 'STORY-001', 'STORY-002')),
      jsonl: finishedRun('s-three', 'ok', 0.03),
    });
    await loop.agent(4, {
      taskList: prdText(passing(STORIES, 'STORY-001', 'STORY-002', 'STORY-003')),
      jsonl: finishedRun('s-four', 'all <promise>COMPLETE</promise>', 0.04),
    });

    const detach = await loop.run(['run', '--detach', '--pause', '0']);
    expect(detach.stderr).toBe('');
    expect(detach.code).toBe(0);
    const pid = Number(/running in the background \(pid (\d+)\)/.exec(detach.stdout)?.[1]);
    expect(detach.stdout).toContain('ralph attach .ralph/feature-fake-loop');
    expect(detach.stdout).toContain('ralph stop .ralph/feature-fake-loop');

    expect(await listed(loop)).toMatchObject({ state: 'RUNNING', pid });
    await waitFor('the second call', () => existsSync(join(loop.scripts, 'argv-2.json')), 10_000);
    const agent = (await loop.argv(2)).pid;
    groups.push(agent);

    const attach = loop.start(['attach']);
    started.push(attach);
    // History first: the current run so far, up to the second iteration's start.
    await waitFor(
      'attach to replay',
      () => attach.stdout().includes('▶ iteration 2: STORY-002'),
      10_000,
    );
    expect(attach.stdout()).toContain('✓ iteration 1 progress: STORY-001 now passing');
    const go = Date.now();
    await writeFile(join(loop.scripts, 'go'), '');
    await waitFor(
      'the live tool call',
      () => attach.stdout().includes('· Write src/live.ts'),
      15_000,
    );
    const latency = Date.now() - go; // reported, not asserted: the machine is shared and noisy
    console.log(`attach: live event shown ${latency} ms after the agent printed it`);

    // Ctrl+C on another attach detaches it and leaves the loop running.
    const second = loop.start(['attach', '--history', '1']);
    started.push(second);
    // Its history line comes after its Ctrl+C handler is in place.
    await waitFor('the second attach', () => second.stdout() !== '', 10_000);
    process.kill(second.pid, 'SIGINT');
    const detached = await second.exited;
    expect(detached.code).toBe(0);
    expect(detached.stderr).toContain('ralph: detached; the loop keeps running');
    expect(await listed(loop)).toMatchObject({ state: 'RUNNING', pid });

    const stop = await loop.run(['stop']);
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(
      `Stopped the run in .ralph/feature-fake-loop (pid ${pid}): PAUSED after iteration 2.`,
    );
    const attached = await attach.exited;
    expect(attached.code).toBe(0); // attach ends with the run
    expect(attached.stdout).toContain('run PAUSED: interrupted');
    expect(await livingGroupMembers(agent)).toEqual([]); // the agent's whole tree ended
    expect(await listed(loop)).toMatchObject({ state: 'PAUSED', iteration: 2 });
    const runLog = await readFile(join(loop.dir, 'logs', 'run.log'), 'utf8');
    // The background run got the user's options back, and skipped the preflight already passed.
    expect(runLog).toContain(`=== ralph run ${loop.dir} --pause 0 --skip-preflight (background,`);
    expect(runLog).toContain('ralph: PAUSED — interrupted. 2 iterations');

    const resumed = await loop.run(['run', '--pause', '0', '--no-archive']);
    expect(resumed.code).toBe(0);
    const runs = ofType(await loop.events(), 'run_started');
    expect(runs.map((each) => each.resumedAfterIteration)).toEqual([0, 2]);
    expect(await listed(loop)).toMatchObject({ state: 'COMPLETE', iteration: 4 });

    const logs = await loop.run(['logs', '--iteration', '1']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('── iteration 1 ──');
    expect(logs.stdout).toContain('→ Bash npm test');
    expect(logs.stdout).toContain('  ← Tests: 4 passed');
    expect(logs.stdout).toMatch(/■ result: success · 2 turns · \$0\.0200/);
  });

  it('a killed loop shows ORPHANED, cannot be stopped, and resumes', async () => {
    const loop = await createFakeLoop(STORIES.slice(0, 1));
    await loop.agent(1, { sh: `printf '%s\\n' '${initLine('s-hang')}'\nsleep 30` });
    await loop.agent(2, {
      taskList: prdText(passing(STORIES.slice(0, 1), 'STORY-001')),
      jsonl: finishedRun('s-ok', 'ok', 0.01),
    });
    const run = loop.start(['run', '--pause', '0', '--no-archive']);
    started.push(run);
    await waitFor(
      'the agent to start',
      () => existsSync(join(loop.scripts, 'argv-1.json')),
      10_000,
    );
    groups.push((await loop.argv(1)).pid);
    await waitFor('RUNNING', async () => (await listed(loop)).state === 'RUNNING', 10_000);
    process.kill(run.pid, 'SIGKILL'); // no chance to record an end or release the lock
    await run.exited;

    expect(await listed(loop)).toMatchObject({ state: 'ORPHANED', pid: run.pid });
    // The monitor agrees with list: events.jsonl still ends RUNNING, the lock says otherwise.
    const once = await loop.run(['monitor', '--once']);
    expect(once.stdout).toContain('ORPHANED');
    expect(once.stdout).not.toContain('RUNNING');
    const text = await loop.run(['list']);
    expect(text.stdout).toMatch(
      /ORPHANED\s+\.ralph\/feature-fake-loop .*process gone: `ralph run` resumes/,
    );
    const stop = await loop.run(['stop']);
    expect(stop.code).toBe(1);
    expect(stop.stderr).toContain('is gone without recording an end (ORPHANED)');
    expect(stop.stderr).toContain('hint: `ralph run .ralph/feature-fake-loop` resumes it.');

    // The dead run's pid is reused by an unrelated program: the lock still records which
    // process took it, so the program is neither mistaken for the run nor signalled by stop.
    const unrelated = spawn('sleep', ['30'], { stdio: 'ignore' });
    started.push({ pid: unrelated.pid! });
    await reuseLockPid(loop, unrelated.pid!);
    expect(await listed(loop)).toMatchObject({ state: 'ORPHANED', pidReused: true });
    expect((await loop.run(['list'])).stdout).toContain(
      'process gone (its pid now runs another program): `ralph run` resumes',
    );
    const refused = await loop.run(['stop']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'that pid now belongs to another process, which was left alone',
    );
    expect(unrelated.exitCode).toBeNull();
    expect(unrelated.signalCode).toBeNull();

    const resumed = await loop.run(['run', '--pause', '0', '--no-archive']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('took over a stale lock');
    expect(resumed.stdout).toContain('that pid now belongs to another process');
    // …and through the event stream, for attach, the monitors and --json.
    expect(
      ofType(await loop.events(), 'warning').some((each) =>
        String(each.message).includes('took over a stale lock'),
      ),
    ).toBe(true);
    expect(
      ofType(await loop.events(), 'run_started').map((each) => each.resumedAfterIteration),
    ).toEqual([0, 1]);
    expect(await listed(loop)).toMatchObject({ state: 'COMPLETE' });
  });

  it('logs -f follows the agent of the running iteration, then the next, until the run ends', async () => {
    const loop = await createFakeLoop(STORIES.slice(0, 2));
    await loop.agent(1, {
      sh: 'while [ ! -f "$FAKE_CLAUDE_SCRIPT_DIR/go" ]; do sleep 0.02; done',
      taskList: prdText(passing(STORIES.slice(0, 2), 'STORY-001')),
      jsonl: finishedRun('s-a', 'a', 0.01),
    });
    await loop.agent(2, {
      taskList: prdText(passing(STORIES.slice(0, 2), 'STORY-001', 'STORY-002')),
      jsonl: finishedRun('s-b', 'b', 0.01),
    });
    const run = loop.start(['run', '--pause', '0', '--no-archive']);
    started.push(run);
    await waitFor(
      'the agent to start',
      () => existsSync(join(loop.scripts, 'argv-1.json')),
      10_000,
    );
    const follow = loop.start(['logs', '-f']);
    started.push(follow);
    await waitFor('logs -f to start', () => follow.stdout().includes('── iteration 1 ──'), 10_000);
    await writeFile(join(loop.scripts, 'go'), '');
    const done = await follow.exited;
    expect(done.code).toBe(0);
    const out = done.stdout;
    expect(out.indexOf('── iteration 1 ──')).toBeLessThan(out.indexOf('● session s-a'));
    expect(out.indexOf('● session s-a')).toBeLessThan(out.indexOf('── iteration 2 ──'));
    expect(out.indexOf('── iteration 2 ──')).toBeLessThan(out.indexOf('● session s-b'));
    expect(out).toContain('■ result: success');
    expect((await run.exited).code).toBe(0);
  });
});
