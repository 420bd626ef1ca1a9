import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';

const asRoot = process.getuid?.() === 0;

/**
 * As root, Claude Code refuses --dangerously-skip-permissions unless IS_SANDBOX=1: validate said
 * "All checks passed" and the run then stopped at the first iteration.
 */
describe.runIf(asRoot)('validate as root', () => {
  it('warns without IS_SANDBOX=1, and fails when the config passes the flag', async () => {
    const { repo, home } = await tempRepo();
    expect((await runRalph(['init'], repo, testEnv(home))).code).toBe(0);

    const plain = await runRalph(['validate'], repo, testEnv(home));
    expect(plain.stdout).toContain('IS_SANDBOX=1');
    expect(plain.stdout).not.toContain('All checks passed');

    const sandboxed = await runRalph(['validate'], repo, testEnv(home, { IS_SANDBOX: '1' }));
    expect(sandboxed.stdout).not.toContain('IS_SANDBOX');

    await writeFile(
      join(repo, '.ralph', 'config.yaml'),
      'agents:\n  claude:\n    dangerouslySkipPermissions: true\n',
    );
    const skipping = await runRalph(['validate'], repo, testEnv(home));
    expect(skipping.code).toBe(2);
    expect(skipping.stdout).toMatch(/✗ Running as root/);
  });
});
