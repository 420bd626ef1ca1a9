import { randomBytes } from 'node:crypto';
import { closeSync, fsync, openSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { withStorageErrors } from '../util/storage-errors.js';

const fsyncAsync = promisify(fsync);

/**
 * Writes a file so that readers see either the old content or the new, never a torn one, and a
 * crash leaves at worst a stray temp file: write a temp file in the same folder (rename is only
 * atomic within one filesystem), fsync it, rename it over the target, then fsync the folder so
 * the rename itself survives a power loss.
 *
 * Only the two fsyncs, which wait for the disk, go through libuv's thread pool. Open, write, close
 * and rename of a small state file return in microseconds; sent through the pool, each cost two
 * thread wake-ups, and on a busy machine the eight of them took longer than the writes themselves
 * (issue 10: ralph's cost per iteration).
 *
 * Safe in folders the agent can write: the temp file is created with O_EXCL ('wx'), which fails
 * on any existing name, a planted link included, instead of following it; and rename replaces
 * a symbolic or hard link at `path` with the new file rather than writing into what it points
 * to. The folder itself is followed: it is the person's choice (see util/no-follow.ts).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  // A full disk, a read-only mount or a folder without write permission is the person's to fix:
  // said with the path and the fix (util/storage-errors.ts), not as ralph's bug.
  await withStorageErrors(path, () => writeAtomically(path, data));
}

async function writeAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeFileSync(fd, data);
    await fsyncAsync(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
  await syncDirectory(dir);
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone, or the folder went away: nothing left to clean up
  }
}

async function syncDirectory(dir: string): Promise<void> {
  // Some filesystems refuse fsync on a directory (EISDIR/EINVAL); the rename already happened.
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    await fsyncAsync(fd);
  } catch {
    // best effort, see above
  } finally {
    closeSync(fd);
  }
}
