import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';

/** A token guards the dashboard off loopback: a blank or empty one must not start it. */
describe('monitor --web token checks', () => {
  it.each([
    ['RALPH_MONITOR_TOKEN=" " off loopback', ['--host', '0.0.0.0'], { RALPH_MONITOR_TOKEN: ' ' }],
    ['--token ""', ['--token', ''], {}],
    ['--token abc', ['--token', 'abc'], {}],
  ])('%s is a usage error naming the minimum length', async (_name, args, extra) => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(
      ['monitor', '--web', '--port', '0', ...args],
      repo,
      testEnv(home, extra),
    );
    expect(result.code, result.stdout).toBe(2);
    expect(result.stderr).toContain('too weak');
    expect(result.stderr).toContain('16 characters');
    expect(result.stderr).not.toContain('internal error');
    expect(result.stdout).not.toContain('dashboard at');
  });
});
