import { lstat, rm } from 'node:fs/promises';
import { writeFileAtomic } from '../state/atomic-write.js';
import { isUnsafeFileError, readFileNoFollow } from '../util/no-follow.js';

/**
 * The configuration files that say how ralph checks the agent's work (`qualityChecks`, `verify`,
 * the guard): the agent must not weaken them for a later iteration or run. Each is read before
 * the agent starts; after it, a changed file is put back, one it created is removed, one it
 * removed is written again. (With the OS sandbox on they are read-only to the agent anyway.)
 */
export interface ConfigSnapshot {
  /** The files the agent changed, put back as they were; empty when it left them alone. */
  restore(): Promise<string[]>;
}

/** `undefined` for a file that was not there; a link or other non-file reads as missing. */
async function contentOf(path: string): Promise<string | undefined> {
  try {
    return await readFileNoFollow(path);
  } catch (error) {
    if (isUnsafeFileError(error)) return undefined;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function snapshotConfigs(paths: readonly string[]): Promise<ConfigSnapshot> {
  const before = await Promise.all(
    paths.map(async (path) => ({ path, text: await contentOf(path) })),
  );
  return {
    async restore() {
      const restored: string[] = [];
      for (const { path, text } of before) {
        if ((await contentOf(path)) === text && text !== undefined) continue;
        if (text === undefined) {
          // It was not there: whatever is there now (a file, a link) goes.
          if ((await lstat(path).catch(() => undefined)) === undefined) continue;
          await rm(path, { force: true, recursive: true });
          restored.push(path);
          continue;
        }
        await writeFileAtomic(path, text);
        restored.push(path);
      }
      return restored;
    },
  };
}
