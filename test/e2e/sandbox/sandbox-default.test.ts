import { expect, it } from 'vitest';
import { describeNeeding, tool } from '../../requirements.js';
import { finishedRun } from '../run/agent-stream.js';
import { createFakeLoop, story } from '../run/fake-loop.js';

/**
 * The sandbox is on by default; a run without it says so in its output every time, however it
 * was turned off.
 */
describeNeeding(tool('bwrap'), 'ralph run: the sandbox by default', () => {
  it('warns in every run without the sandbox, and not in a sandboxed one', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent('default', { jsonl: finishedRun('session-1', 'Working on it.') });
    const warning = 'the agent runs without the OS sandbox';
    const sandboxed = await loop.run(['run', '-n', '1', '--pause', '0']);
    expect(sandboxed.stdout + sandboxed.stderr).not.toContain(warning);
    const flag = await loop.run(['run', '-n', '1', '--pause', '0', '--no-sandbox']);
    expect(flag.stdout + flag.stderr).toContain(warning);
    const config = await loop.run(['run', '-n', '1', '--pause', '0'], {
      ...loop.env,
      RALPH_SANDBOX_ENABLED: 'false',
    });
    expect(config.stdout + config.stderr).toContain(warning);
  });
});
