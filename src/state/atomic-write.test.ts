import {
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-write.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'ralph-atomic-'));
}

describe('writeFileAtomic', () => {
  it('creates a file and replaces an existing one whole', async () => {
    const dir = await tempDir();
    const file = join(dir, 'status.json');
    await writeFileAtomic(file, '{"a":1}\n');
    expect(await readFile(file, 'utf8')).toBe('{"a":1}\n');
    await writeFileAtomic(file, '{"a":2}\n');
    expect(await readFile(file, 'utf8')).toBe('{"a":2}\n');
  });

  it('leaves no temp files behind', async () => {
    const dir = await tempDir();
    await writeFileAtomic(join(dir, 'x.txt'), 'one');
    await writeFileAtomic(join(dir, 'x.txt'), 'two');
    expect(await readdir(dir)).toEqual(['x.txt']);
  });

  it('keeps the old content and cleans up when the rename fails', async () => {
    const dir = await tempDir();
    // Renaming a file over a non-empty directory fails; the target must stay as it was.
    const target = join(dir, 'target');
    await writeFile(join(dir, 'keep.txt'), 'old');
    await mkdir(join(target, 'child'), { recursive: true });
    await expect(writeFileAtomic(target, 'new')).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['keep.txt', 'target']);
    expect(await readFile(join(dir, 'keep.txt'), 'utf8')).toBe('old');
  });

  it('fails without creating anything when the folder does not exist', async () => {
    const dir = await tempDir();
    await expect(writeFileAtomic(join(dir, 'missing', 'f.json'), 'x')).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(await readdir(dir)).toEqual([]);
  });

  // The agent may swap a file ralph rewrites (status.json, the task list) for a link to a file
  // outside: the rename must replace the link itself, never write into what it points to.
  it('replaces a symbolic or hard link at the destination instead of writing through it', async () => {
    const dir = await tempDir();
    const outside = await tempDir();
    const victim = join(outside, '.bashrc');
    await writeFile(victim, 'export A=1\n');
    await symlink(victim, join(dir, 'status.json'));
    await link(victim, join(dir, 'prd.json'));
    await writeFileAtomic(join(dir, 'status.json'), '{}\n');
    await writeFileAtomic(join(dir, 'prd.json'), '[]\n');
    expect(await readFile(victim, 'utf8')).toBe('export A=1\n');
    expect((await lstat(join(dir, 'status.json'))).isFile()).toBe(true);
    expect(await readFile(join(dir, 'status.json'), 'utf8')).toBe('{}\n');
    expect(await readFile(join(dir, 'prd.json'), 'utf8')).toBe('[]\n');
  });

  // Decided: the folder is followed. A loop directory reached through a link (a shared .ralph,
  // macOS's /var → /private/var) is the person's setup; ralph's own subfolders (logs/, archive/)
  // are checked where they are created (util/no-follow.ts ownFolder), and under the sandbox the
  // agent cannot swap the loop directory at all.
  it('follows a folder reached through a link: the file lands in the link target', async () => {
    const real = await tempDir();
    const linked = join(await tempDir(), 'loop');
    await symlink(real, linked);
    await writeFileAtomic(join(linked, 'status.json'), '{}');
    expect(await readdir(real)).toEqual(['status.json']);
  });
});
