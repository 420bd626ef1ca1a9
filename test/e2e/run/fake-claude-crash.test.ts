import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { describeNeeding, inCi, type Requirement } from '../../requirements.js';
import { finishedRun } from './agent-stream.js';
import {
  createFakeLoop,
  killAfterEach,
  ofType,
  passing,
  prdText,
  story,
  waitFor,
  type FakeLoop,
} from './fake-loop.js';

/**
 * Crash gaps (issue 15, item 3): ralph SIGKILLed while the agent rewrites prd.json in place, a
 * full disk and a read-only loop folder. Each must end in a sentence naming the path and the fix
 * and a loop the next run can continue, never "internal error … a bug in ralph".
 */

const { started } = killAfterEach();

/** Whether this process may mount filesystems (root in a container that allows it). */
function mountRequirement(): Requirement {
  let present = false;
  const dir = join(tmpdir(), `ralph-mount-probe-${process.pid}`);
  try {
    execFileSync('mkdir', ['-p', dir]);
    present = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir]).status === 0;
    if (present) execFileSync('umount', [dir]);
    execFileSync('rmdir', [dir]);
  } catch {
    present = false;
  }
  return {
    what: 'permission to mount (mount -t tmpfs, mount --bind)',
    present,
    required: inCi(),
    hint: 'run the tests as root in a container that allows mount (.ci/run does); CI=true makes this a failure, not a skip',
  };
}

function mount(args: string[]): void {
  execFileSync('mount', args);
  const target = args.at(-1) ?? '';
  onTestFinished(() => {
    spawnSync('umount', ['-l', target]);
  });
}

/** What a run must never leave: temp files, the lock, a lock temp folder, the snapshot. */
async function leftovers(loop: FakeLoop): Promise<string[]> {
  const names = [
    ...(await readdir(loop.dir)),
    ...(await readdir(join(loop.dir, 'logs')).catch(() => [] as string[])),
  ];
  return names.filter(
    (name) => name.endsWith('.tmp') || name === '.ralph.lock' || name === 'task-list-snapshot.json',
  );
}

describe('ralph run with a fake claude: a kill mid-write of the task list', () => {
  it('restores the torn prd.json from the snapshot on the next run, keeping the readable passes, and completes', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    const rewritten = prdText(passing(stories, 'STORY-001'));
    // Cut inside STORY-002: STORY-001's passes is whole, the rest of the file is not there yet.
    const cut = rewritten.indexOf('STORY-002') + 20;
    await writeFile(join(loop.scripts, 'rewritten.json'), rewritten);
    // An in-place rewrite that is slow: truncate, write the first part, then keep writing.
    await loop.agent(1, {
      sh: [
        `: > '${loop.prdFile}'`,
        `head -c ${cut} "$FAKE_CLAUDE_SCRIPT_DIR/rewritten.json" >> '${loop.prdFile}'`,
        'touch "$FAKE_CLAUDE_SCRIPT_DIR/torn"',
        'sleep 30',
      ].join('\n'),
    });
    await loop.agent(2, {
      taskList: prdText(passing(stories, 'STORY-001', 'STORY-002')),
      jsonl: finishedRun('session-2', '<promise>COMPLETE</promise>'),
    });

    const first = loop.start(['run', LOOP_ARG]);
    started.push(first);
    await waitFor('the agent to tear prd.json', () => existsSync(join(loop.scripts, 'torn')));
    process.kill(first.pid, 'SIGKILL');
    await first.exited;
    expect(() => {
      JSON.parse(execFileSync('cat', [loop.prdFile], { encoding: 'utf8' }));
    }).toThrow();
    expect(existsSync(join(loop.dir, 'logs', 'task-list-snapshot.json'))).toBe(true);
    // What kills leave besides (the killed ralph's pid is dead): swept by the next run.
    await writeFile(join(loop.dir, `.status.json.${first.pid}.0123abcd.tmp`), '{');
    const lockTemp = join(loop.dir, '.ralph.lock.0123456789abcdef.tmp');
    await mkdir(lockTemp);
    await writeFile(join(lockTemp, 'holder-0123456789abcdef.json'), `{"pid": ${first.pid}}`);

    // validate says what the run will do, and touches nothing.
    const torn = await loop.prd();
    const validate = await loop.run(['validate', LOOP_ARG]);
    expect(validate.stdout).toMatch(/prd\.json is invalid; ralph run restores it/);
    expect(await loop.prd()).toBe(torn);

    const second = await loop.run(['run', LOOP_ARG]);
    expect(second.stderr).not.toMatch(/internal error/);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(JSON.parse(await loop.prd())).toEqual(
      JSON.parse(prdText(passing(stories, 'STORY-001', 'STORY-002'))),
    );
    const restored = ofType(await loop.events(), 'task_list_restored');
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({
      iteration: 1,
      atRunStart: true,
      kept: ['STORY-001 passes: true'],
    });
    expect(await loop.progress()).toMatch(
      /ralph: iteration 1: restored the task list from before the iteration \(at the start of the next run: ralph had been stopped while the agent ran\): left the task list unreadable: .* \(kept: STORY-001 passes: true\)/,
    );
    // STORY-001's pass survived the tear but ralph never judged it (the run was killed), and
    // this project has nothing to verify it with (no checks, no commit for the test scan): the
    // second run sets it back to false first, so the agent works on it again (issue 12).
    expect(await loop.calls()).toBe(2);
    expect((await loop.argv(2)).prompt).toContain('Work on **STORY-001:');
    expect(await loop.progress()).toMatch(
      /STORY-001 rejected by ralph .*\n\nralph set passes back to false: marked passing without ralph’s verification/,
    );
    expect(await leftovers(loop)).toEqual([]);
    expect(second.stdout + second.stderr).toMatch(
      /removed 2 temp files that a killed run left behind/,
    );
  }, 60_000);
});

const LOOP_ARG = '.ralph/feature-fake-loop';

describeNeeding(mountRequirement(), 'ralph run with a fake claude: disk full and read-only', () => {
  it('ends PAUSED with the path and the fix when the disk fills mid-run, and resumes once there is room', async () => {
    const stories = [story(1)];
    const loop = await createFakeLoop(stories);
    const logs = join(loop.dir, 'logs');
    execFileSync('mkdir', ['-p', logs]);
    mount(['-t', 'tmpfs', '-o', 'size=128k', 'tmpfs', logs]);
    // The agent fills the disk its log is on, then prints its output: ralph cannot log it.
    await loop.agent(1, {
      sh: `head -c 1048576 /dev/zero > '${join(logs, 'fill')}' 2>/dev/null || true`,
      jsonl: finishedRun('session-1', 'x'.repeat(8192)),
    });
    await loop.agent(2, {
      taskList: prdText(passing(stories, 'STORY-001')),
      jsonl: finishedRun('session-2', '<promise>COMPLETE</promise>'),
    });

    // Without the sandbox: inside it the loop's logs/ is read-only, so the agent could not fill it.
    const full = await loop.run(['run', LOOP_ARG, '--no-sandbox']);
    const said = full.stdout + full.stderr;
    expect(said).not.toMatch(/internal error|bug in ralph/);
    expect(said).toMatch(/PAUSED/);
    expect(said).toMatch(
      /cannot write .*logs\/iteration-1-attempt-1\.jsonl: the disk is full \(ENOSPC\)/,
    );
    expect(said).toMatch(/hint: free some space/);
    expect(full.code).toBe(1);
    expect(await loop.status()).toMatchObject({ state: 'PAUSED' });
    // The snapshot stays: the attempt never settled its task list, so the next run checks it.
    expect(await leftovers(loop)).toEqual(['task-list-snapshot.json']);

    await rm(join(logs, 'fill'));
    const resumed = await loop.run(['run', LOOP_ARG]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(await loop.status()).toMatchObject({ state: 'COMPLETE', storiesPassing: 1 });
    expect(await leftovers(loop)).toEqual([]);
  }, 60_000);

  it('says the disk is full when even the lock cannot be written, and leaves no lock folder', async () => {
    const loop = await createFakeLoop([story(1)]);
    const saved = await mkdtemp(join(tmpdir(), 'ralph-loop-copy-'));
    execFileSync('cp', ['-a', `${loop.dir}/.`, saved]);
    mount(['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', loop.dir]);
    execFileSync('cp', ['-a', `${saved}/.`, loop.dir]);
    spawnSync('sh', ['-c', `head -c 1048576 /dev/zero > '${join(loop.dir, 'fill')}'`]);

    const result = await loop.run(['run', LOOP_ARG]);
    expect(result.stderr).not.toMatch(/internal error|bug in ralph/);
    expect(result.stderr).toMatch(/cannot write .*\.ralph\.lock: the disk is full \(ENOSPC\)/);
    expect(result.code).toBe(1);
    expect(await loop.calls()).toBe(0);
    expect(await leftovers(loop)).toEqual([]);
  }, 60_000);

  it('says the loop folder is read-only, with the fix, and starts no agent', async () => {
    const loop = await createFakeLoop([story(1)]);
    mount(['--bind', loop.dir, loop.dir]);
    mount(['-o', 'remount,bind,ro', loop.dir]);
    const result = await loop.run(['run', LOOP_ARG]);
    expect(result.stderr).not.toMatch(/internal error|bug in ralph/);
    expect(result.stderr).toMatch(
      /cannot write .*\.ralph\.lock: the filesystem is read-only \(EROFS\)/,
    );
    expect(result.stderr).toMatch(/hint: remount it read-write/);
    expect(result.code).toBe(1);
    expect(await loop.calls()).toBe(0);
    expect(await leftovers(loop)).toEqual([]);
    await expect(readFile(join(loop.dir, 'status.json'))).rejects.toThrow();
  }, 60_000);
});
