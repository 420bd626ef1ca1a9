import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcome, RALPH_BIN, runRalph, spawnForTest, tempRepo, testEnv } from '../harness.js';

/** ink and React load for `ralph monitor` alone (design.md §1): other commands must not pay. */
const PROBE = resolve(import.meta.dirname, '../../fixtures/monitor/report-react.mjs');

async function ralphWithProbe(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const child = spawnForTest(process.execPath, ['--import', PROBE, RALPH_BIN, ...args], {
    cwd,
    env,
  });
  return (await outcome(child)).stderr;
}

describe('lazy loading of the terminal monitor', () => {
  it('status, list, attach, logs and help start without React; monitor loads it', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    expect((await runRalph(['init'], repo, env)).code).toBe(0);
    for (const args of [
      ['status'],
      ['list'],
      ['attach'],
      ['logs', '--all'],
      ['--help'],
      ['monitor', '--help'],
    ]) {
      expect(await ralphWithProbe(args, repo, env), args.join(' ')).toContain('react loaded: no');
    }
    // The probe does see React when it is loaded: the terminal monitor, once.
    const monitor = await ralphWithProbe(['monitor', '--once'], repo, env);
    expect(monitor).toContain('react loaded: yes');
  });
});
