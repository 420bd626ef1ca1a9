import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotConfigs } from './config-guard.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-config-guard-'));
  dirs.push(dir);
  return dir;
}

describe('snapshotConfigs', () => {
  it('puts back a changed file, removes a created one (a link too), writes a removed one again', async () => {
    const dir = await folder();
    const [changed, created, removed, untouched, linked] = [
      'changed.yaml',
      'created.yaml',
      'removed.yaml',
      'untouched.yaml',
      'linked.yaml',
    ].map((name) => join(dir, name));
    await writeFile(changed!, 'qualityChecks:\n  test: npm test\n');
    await writeFile(removed!, 'verify:\n  testIntegrity: true\n');
    await writeFile(untouched!, 'maxIterations: 3\n');
    const snapshot = await snapshotConfigs([changed!, created!, removed!, untouched!, linked!]);

    await writeFile(changed!, 'qualityChecks:\n  test: "true"\n');
    await writeFile(created!, 'verify:\n  testIntegrity: false\n');
    await rm(removed!);
    await symlink(join(dir, 'elsewhere'), linked!);

    expect((await snapshot.restore()).sort()).toEqual([changed, created, linked, removed].sort());
    expect(await readFile(changed!, 'utf8')).toBe('qualityChecks:\n  test: npm test\n');
    expect(existsSync(created!)).toBe(false);
    expect(await readFile(removed!, 'utf8')).toBe('verify:\n  testIntegrity: true\n');
    expect(await readFile(untouched!, 'utf8')).toBe('maxIterations: 3\n');
    expect(existsSync(linked!)).toBe(false);
    expect(await snapshot.restore()).toEqual([]);
  });
});
