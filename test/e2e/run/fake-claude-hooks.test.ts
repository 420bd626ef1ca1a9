import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun } from './agent-stream.js';
import { createFakeLoop, ofType, passing, prdText, story } from './fake-loop.js';

/**
 * The person's hook scripts (DIR/hooks/<point>.sh) in a real `ralph run` with the fake claude:
 * each point runs in order with the spec's variables, a failing hook is a warning, and
 * hooks.enabled: false (RALPH_HOOKS_ENABLED) turns them off.
 */

const STORIES = [story(1), story(2)];
const RECORD = (point: string) =>
  `echo "${point} it=\${RALPH_ITERATION:-} story=\${RALPH_STORY_ID:-} outcome=\${RALPH_ITERATION_OUTCOME:-} status=\${RALPH_RUN_STATUS:-} feature=$RALPH_FEATURE_NAME" >> hooks.log\n`;

async function loopWithHooks() {
  const loop = await createFakeLoop(STORIES);
  await loop.agent(1, {
    taskList: prdText(passing(STORIES, 'STORY-001')),
    jsonl: finishedRun('s1', 'ok', 0.01),
  });
  await loop.agent(2, {
    taskList: prdText(passing(STORIES, 'STORY-001', 'STORY-002')),
    jsonl: finishedRun('s2', '<promise>COMPLETE</promise>', 0.01),
  });
  await mkdir(join(loop.dir, 'hooks'));
  for (const point of ['pre_run', 'pre_iteration', 'post_iteration', 'on_completion', 'post_run'])
    await writeFile(join(loop.dir, 'hooks', `${point}.sh`), RECORD(point));
  return loop;
}

describe('hook scripts in ralph run', () => {
  it('runs each point in order, in the repository, with the variables', async () => {
    const loop = await loopWithHooks();
    const run = await loop.run(['run', '--pause', '0', '--no-archive']);
    expect(run.code, run.stderr).toBe(0);
    expect((await readFile(join(loop.repo, 'hooks.log'), 'utf8')).trim().split('\n')).toEqual([
      'pre_run it= story= outcome= status= feature=feature/fake-loop',
      'pre_iteration it=1 story=STORY-001 outcome= status= feature=feature/fake-loop',
      'post_iteration it=1 story=STORY-001 outcome=progress status= feature=feature/fake-loop',
      'pre_iteration it=2 story=STORY-002 outcome= status= feature=feature/fake-loop',
      'post_iteration it=2 story=STORY-002 outcome=complete status= feature=feature/fake-loop',
      'on_completion it=2 story= outcome= status=complete feature=feature/fake-loop',
      'post_run it=2 story= outcome= status=complete feature=feature/fake-loop',
    ]);
  });

  it('reports a failing hook as a warning (output on stderr, a warning event) and completes', async () => {
    const loop = await loopWithHooks();
    await writeFile(
      join(loop.dir, 'hooks', 'pre_run.sh'),
      'echo "checking the VPN"\necho "no VPN" >&2\nexit 4\n',
    );
    const run = await loop.run(['run', '--pause', '0', '--no-archive']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('ralph: hook pre_run: checking the VPN');
    expect(run.stdout).toContain('hook pre_run: exit code 4: no VPN');
    expect(ofType(await loop.events(), 'warning').map((each) => each.message)).toContain(
      'hook pre_run: exit code 4: no VPN',
    );
    expect(await loop.status()).toMatchObject({ state: 'COMPLETE' });
  });

  it('runs none with RALPH_HOOKS_ENABLED=false', async () => {
    const loop = await loopWithHooks();
    const run = await loop.run(['run', '--pause', '0', '--no-archive'], {
      ...loop.env,
      RALPH_HOOKS_ENABLED: 'false',
    });
    expect(run.code).toBe(0);
    await expect(readFile(join(loop.repo, 'hooks.log'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
