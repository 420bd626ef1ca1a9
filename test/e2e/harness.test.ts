import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning, waitFor } from './run/fake-loop.js';
import { spawnForTest, tempRepo } from './harness.js';

/**
 * The harness kills what a test started when the test ends, however it ends (a timeout never
 * reaches the test's own clean-up): the process, its group, and a grandchild in a group of its
 * own, as ralph starts its agents. The tests run in order: the first leaves a tree behind.
 */
describe('spawnForTest', () => {
  let pids: number[] = [];

  it('starts a tree and ends without stopping it', async () => {
    const { repo } = await tempRepo();
    const file = join(repo, 'pids');
    const script = `sleep 60 & setsid sleep 60 & echo "$$ $!" > '${file}'; wait`;
    const child = spawnForTest('sh', ['-c', script], { stdio: 'ignore' });
    await waitFor('the pids', async () => (await readFile(file, 'utf8').catch(() => '')) !== '');
    pids = (await readFile(file, 'utf8')).trim().split(' ').map(Number);
    expect(pids[0]).toBe(child.pid);
    for (const pid of pids) expect(await isRunning(pid), `pid ${pid}`).toBe(true);
  });

  it('finds nothing of it running afterwards', async () => {
    expect(pids).toHaveLength(2);
    await waitFor('the tree to go', async () => {
      const states = await Promise.all(pids.map(isRunning));
      return states.every((running) => !running);
    });
  });
});
