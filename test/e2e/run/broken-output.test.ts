import { describe, expect, it } from 'vitest';
import { RALPH_BIN, spawnForTest } from '../harness.js';
import { initLine, toolUseLine } from './agent-stream.js';
import { createFakeLoop, story } from './fake-loop.js';

/**
 * When ralph's output goes away (`| head`, a closed terminal): no crash with a stack trace, and
 * a run pauses cleanly (state PAUSED, lock released) instead of dying RUNNING with a stale lock.
 */

function pipeline(command: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawnForTest('sh', ['-c', command], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('close', (code) => {
      resolve({ code, stderr });
    });
  });
}

describe('broken output', () => {
  it('ralph run --json | head -n 2: the run pauses, resumable, with no stack trace', async () => {
    const loop = await createFakeLoop([story(1)]);
    const tool = toolUseLine('s-busy', 'toolu_1', 'Bash', { command: 'npm test' });
    await loop.agent(1, {
      sh: [
        `printf '%s\\n' '${initLine('s-busy')}'`,
        `for i in $(seq 1 150); do printf '%s\\n' '${tool}'; sleep 0.2; done`,
      ].join('\n'),
    });
    const result = await pipeline(
      `'${process.execPath}' '${RALPH_BIN}' run --json --pause 0 --no-archive | head -n 2`,
      loop.repo,
      loop.env,
    );
    expect(result.stderr).not.toContain('Unhandled');
    expect(result.stderr).not.toContain('EPIPE');
    expect(await loop.status()).toMatchObject({ state: 'PAUSED' });
    const { loops } = JSON.parse((await loop.run(['list', '--json'])).stdout) as {
      loops: { state: string }[];
    };
    expect(loops.map((each) => each.state)).toEqual(['PAUSED']); // the lock was released
  });

  it('ralph status | head -n 1 ends quietly', async () => {
    const loop = await createFakeLoop([story(1)]);
    const result = await pipeline(
      `'${process.execPath}' '${RALPH_BIN}' status | head -n 1`,
      loop.repo,
      loop.env,
    );
    expect(result).toEqual({ code: 0, stderr: '' });
  });
});
