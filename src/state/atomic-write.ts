import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that readers see either the old content or the new, never a torn one, and a
 * crash leaves at worst a stray temp file: write a temp file in the same folder (rename is only
 * atomic within one filesystem), fsync it, rename it over the target, then fsync the folder so
 * the rename itself survives a power loss.
 *
 * Safe in folders the agent can write: the temp file is created with O_EXCL ('wx'), which fails
 * on any existing name, a planted link included, instead of following it; and rename replaces
 * a symbolic or hard link at `path` with the new file rather than writing into what it points
 * to. The folder itself is followed: it is the person's choice (see util/no-follow.ts).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  // Some filesystems refuse fsync on a directory (EISDIR/EINVAL); the rename already happened.
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // best effort, see above
  } finally {
    await handle.close();
  }
}
