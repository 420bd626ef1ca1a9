import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';

/** What a new user hit with `ralph setup`: a quiet allow list, and a bare `setup` that forgot --guard. */
describe('ralph setup as a new user meets it', () => {
  it('--guard prints every permission it writes, and allows neither curl nor WebFetch', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['setup', '--guard'], repo, testEnv(home));
    expect(result.code, result.stderr).toBe(0);
    const settings = JSON.parse(
      await readFile(join(repo, '.claude', 'settings.local.json'), 'utf8'),
    ) as { permissions: { allow: string[]; deny: string[] } };
    for (const entry of [...settings.permissions.allow, ...settings.permissions.deny])
      expect(result.stdout, entry).toContain(entry);
    expect(settings.permissions.allow).not.toContain('Bash(curl:*)');
    expect(settings.permissions.allow).not.toContain('WebFetch');
    expect(result.stdout).toContain('permissions.allow');
    const lists = result.stdout.slice(result.stdout.indexOf('permissions.allow'));
    for (const line of lists.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('plain `setup` installs the planning commands and names the other choices, --guard included', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['setup'], repo, testEnv(home));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--guard');
    expect(result.stdout).toContain('--stop-hook');
    expect(result.stdout).toContain('--plugin');
  });
});
