import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitOnlyRunner, ISOLATED_GIT_ENV } from '../../test/git-check-runner.js';
import { afterAll, describe, expect, it } from 'vitest';
import { gitBlobId, readBaseFiles, readVerifiedBlob, TAMPERED } from './base-files.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const env = ISOLATED_GIT_ENV;

async function repo(): Promise<{ dir: string; commit: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-base-files-'));
  dirs.push(dir);
  await mkdir(join(dir, '.cargo'));
  await writeFile(join(dir, '.npmrc'), 'fund=false\n');
  await writeFile(join(dir, 'package.json'), '{"scripts":{"test":"node --test"}}\n');
  await writeFile(join(dir, '.cargo/config.toml'), '[build]\n');
  execFileSync('git', ['init', '-q'], { cwd: dir, env });
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'one'], {
    cwd: dir,
    env,
  });
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env }).toString().trim();
  return { dir, commit };
}

describe('readBaseFiles', () => {
  it('tells unchanged, changed, added and deleted files apart with one listing', async () => {
    const { dir, commit } = await repo();
    await writeFile(join(dir, 'package.json'), '{"scripts":{"test":"exit 0"}}\n');
    await writeFile(join(dir, 'pytest.ini'), '[pytest]\n');
    await rm(join(dir, '.cargo/config.toml'));
    const runner = gitOnlyRunner();
    const files = ['.npmrc', 'package.json', 'pytest.ini', '.cargo/config.toml', 'jest.config.js'];
    const base = await readBaseFiles(runner, dir, commit, files);
    expect(await base.difference('.npmrc')).toBeUndefined();
    expect(await base.difference('jest.config.js')).toBeUndefined();
    expect(await base.difference('package.json')).toEqual({
      before: '{"scripts":{"test":"node --test"}}\n',
      now: '{"scripts":{"test":"exit 0"}}\n',
    });
    expect(await base.difference('pytest.ini')).toEqual({ now: '[pytest]\n' });
    expect(await base.difference('.cargo/config.toml')).toEqual({ before: '[build]\n' });
    // One ls-tree, then one read of each changed or deleted file's base content: none for the
    // unchanged and the absent ones.
    expect(
      runner.calls.map((call) => call.find((arg) => arg === 'ls-tree' || arg === 'cat-file')),
    ).toEqual(['ls-tree', 'cat-file', 'cat-file']);
  });

  it("computes git's blob ids", () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(gitBlobId(Buffer.from('hello\n'), 'x'.repeat(40))).toBe(
      'ce013625030ba8dba906f756967f9e9ca394464a',
    );
  });

  it('rejects a base blob rewritten in .git/objects under its old id (attack 05b)', async () => {
    const { dir, commit } = await repo();
    const run = (...args: string[]) =>
      execFileSync('git', args, { cwd: dir, env }).toString().trim();
    const blob = run('rev-parse', `${commit}:package.json`);
    const loose = join(dir, '.git/objects', blob.slice(0, 2), blob.slice(2));
    const fake = Buffer.from('{"scripts":{"test":"exit 0"}}\n');
    await chmod(loose, 0o644);
    await writeFile(
      loose,
      deflateSync(Buffer.concat([Buffer.from(`blob ${fake.length}\0`), fake])),
    );
    await writeFile(join(dir, 'package.json'), fake);
    const base = await readBaseFiles(gitOnlyRunner(), dir, commit, ['package.json']);
    // git itself hands out the forged bytes; ralph does not take them.
    expect(run('cat-file', 'blob', blob)).toBe(fake.toString().trim());
    expect(await base.difference('package.json')).toEqual({ now: fake.toString() });
    expect(base.tampered()).toEqual(['package.json']);
  });

  it('checks a blob that is not UTF-8 byte for byte, and leaves no file behind', async () => {
    const { dir } = await repo();
    await writeFile(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const blob = execFileSync('git', ['hash-object', '-w', 'latin1.txt'], { cwd: dir, env })
      .toString()
      .trim();
    const before = await readdir(dir);
    const text = await readVerifiedBlob(gitOnlyRunner(), dir, blob);
    expect(text).not.toBe(TAMPERED);
    expect(text).toContain('caf');
    expect(await readdir(dir)).toEqual(before);
  });
});
