import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runRalph } from '../harness.js';
import { finishedRun } from '../run/agent-stream.js';
import { createFakeLoop, LOOP, prdText, story, waitFor } from '../run/fake-loop.js';
import { describeNeeding, tool } from '../../requirements.js';

/**
 * `ralph run --sandbox` with the fake agent (test/fixtures/bin): the agent's tree runs inside
 * bubblewrap, and stopping the run ends all of it. The fake writes its records into the script
 * folder outside the repository, so the tests make that folder writable (sandbox.writable).
 */

const SLEEP = '3600.25';

/** Processes running `sleep 3600.25` (zombies have no command line and do not count). */
async function sleepers(): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === `sleep\0${SLEEP}\0`) found.push(name);
  }
  return found;
}

describeNeeding(tool('bwrap'), 'ralph run --sandbox with the fake agent', () => {
  it('runs the agent inside: its own pids, writes outside the tree refused', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent('default', {
      sh: `echo "$$" > '${loop.scripts}/inner-pid'; (echo pwned >> "$HOME/.profile") 2>/dev/null || true`,
    });
    const env = { ...loop.env, RALPH_SANDBOX_WRITABLE: loop.scripts };
    const result = await loop.run(['run', '--sandbox', '-n', '1', '--pause', '0'], env);
    expect(result.stderr).not.toContain('internal error');
    expect(await loop.calls()).toBe(1);
    // The fake's shell is a low pid of the sandbox's namespace, not a pid of the host.
    expect(Number(await readFile(join(loop.scripts, 'inner-pid'), 'utf8'))).toBeLessThan(10);
    // (This home lies under /tmp, the sandbox's private one: the write lands there, not here.)
    expect(existsSync(join(loop.home, '.profile'))).toBe(false);
  });

  it('runs the checks ralph verifies a claim with inside the same sandbox', async () => {
    const stories = [{ ...story(1), verify: `echo "$$" > 'SCRIPTS/check-pid'` }];
    const loop = await createFakeLoop(prdText(stories));
    const text = prdText(stories).replace('SCRIPTS', loop.scripts);
    await writeFile(loop.prdFile, text);
    await loop.agent(1, {
      taskList: text.replace('"passes": false', '"passes": true'),
      jsonl: finishedRun('s-1', 'Done. <promise>COMPLETE</promise>'),
    });
    const env = { ...loop.env, RALPH_SANDBOX_WRITABLE: loop.scripts };
    const result = await loop.run(['run', '--sandbox', '-n', '1', '--pause', '0'], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    // The check's shell is a low pid of a sandbox's own namespace, not a pid of the host.
    expect(Number(await readFile(join(loop.scripts, 'check-pid'), 'utf8'))).toBeLessThan(10);
  });

  it("ralph stop ends the sandboxed agent's whole tree", async () => {
    const loop = await createFakeLoop([story(1)]);
    const started = join(loop.scripts, 'started');
    await loop.agent('default', { sh: `echo > '${started}'; sleep ${SLEEP} & sleep ${SLEEP}` });
    const env = { ...loop.env, RALPH_SANDBOX_WRITABLE: loop.scripts };
    const running = loop.start(['run', '--sandbox', '-n', '1'], env);
    await waitFor('the agent to start', () => existsSync(started));
    await waitFor('both sleeps', async () => (await sleepers()).length === 2);
    const stop = await runRalph(['stop', LOOP], loop.repo, env);
    expect(stop.code, stop.stderr).toBe(0);
    expect((await running.exited).code).toBe(130);
    await waitFor('no sleep left', async () => (await sleepers()).length === 0, 5000);
  });
});
