import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
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
});
