import { describe, expect, it } from 'vitest';
import { finishedRun } from '../run/agent-stream.js';
import { createFakeLoop, passing, prdText, story } from '../run/fake-loop.js';

const STORIES = [story(1), story(2)];

/**
 * A finished loop run again (nothing to do): status, list, the monitor and the dashboard (the
 * monitor's reducer) told three different stories about its iteration and cost.
 */
describe('the figures after a no-op re-run of a finished loop', () => {
  it('status, list and monitor agree on the iteration and the loop cost', async () => {
    const loop = await createFakeLoop(STORIES);
    await loop.agent(1, {
      taskList: prdText(passing(STORIES, 'STORY-001')),
      jsonl: finishedRun('s1', 'ok', 0.0125),
    });
    await loop.agent(2, {
      taskList: prdText(passing(STORIES, 'STORY-001', 'STORY-002')),
      jsonl: finishedRun('s2', 'ok <promise>COMPLETE</promise>', 0.025),
    });
    const first = await loop.run(['run', '--pause', '0', '-n', '5']);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const again = await loop.run(['run', '--pause', '0', '-n', '5']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await loop.calls()).toBe(2);

    const status = await loop.run(['status']);
    expect(status.stdout).toMatch(/iteration 2\/7/);
    expect(status.stdout).toContain('$0.0375 all runs');
    const list = await loop.run(['list']);
    expect(list.stdout).toMatch(/2\/7 +2\/2 +\$0\.0375/);
    const monitor = await loop.run(['monitor', '--once']);
    expect(monitor.stdout).toContain('Iteration 2/7');
  }, 60_000);
});
