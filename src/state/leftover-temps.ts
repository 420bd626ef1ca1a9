import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { isProcessAlive, type IsAlive } from './process-identity.js';
import { loopPaths } from './paths.js';

/**
 * What killed runs leave in a loop directory: atomic-write temp files
 * (`.status.json.<pid>.<hex>.tmp`, `.safety.json.…`, the task list's and the snapshot's) and the
 * lock's temp folder (`.ralph.lock.<token>.tmp`). A run sweeps them at its start, once it holds
 * the lock. Only what a dead process left goes: a temp file names its writer's pid, and another
 * process (`ralph stop`, the dashboard) may be writing one right now; a lock temp folder holds its
 * would-be holder's pid, or is empty for a moment while it is being made (hence the minimum age).
 */

const ATOMIC_TEMP = /^\..+\.([1-9]\d*)\.[0-9a-f]{8}\.tmp$/;
const LOCK_TEMP_AGE_MS = 60_000;

export interface SweepOptions {
  isAlive?: IsAlive;
  now?: () => number;
}

/** Removes the leftovers; one warning naming them, or none when there were none. */
export async function sweepLeftoverTemps(
  loopDir: string,
  options: SweepOptions = {},
): Promise<string[]> {
  const isAlive = options.isAlive ?? isProcessAlive;
  const now = options.now ?? Date.now;
  const paths = loopPaths(loopDir);
  const lockTemp = new RegExp(`^${escapeRegExp(basename(paths.lock))}\\.[0-9a-f]{16}\\.tmp$`);
  const removed: string[] = [];
  for (const dir of [paths.dir, paths.logsDir]) {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      const pid = ATOMIC_TEMP.exec(name)?.[1];
      const dead =
        pid !== undefined
          ? !isAlive(Number(pid))
          : dir === paths.dir && lockTemp.test(name) && (await deadLockTemp(path, isAlive, now));
      if (!dead) continue;
      // A leftover that cannot be removed (read-only disk) is left; the run reports its own error.
      if (
        await rm(path, { recursive: true, force: true }).then(
          () => true,
          () => false,
        )
      ) {
        removed.push(dir === paths.dir ? name : join(basename(dir), name));
      }
    }
  }
  if (removed.length === 0) return [];
  const shown = removed.slice(0, 5).join(', ') + (removed.length > 5 ? ', …' : '');
  const count = `${removed.length} temp file${removed.length === 1 ? '' : 's'}`;
  return [`removed ${count} that a killed run left behind: ${shown}`];
}

async function deadLockTemp(path: string, isAlive: IsAlive, now: () => number): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return false;
  const names = info.isDirectory() ? await readdir(path).catch(() => [] as string[]) : [];
  for (const name of names) {
    const text = await readFile(join(path, name), 'utf8').catch(() => '');
    const pid = /"pid":\s*(\d+)/.exec(text)?.[1];
    if (pid !== undefined) return !isAlive(Number(pid));
  }
  // Empty or unreadable: being written right now, or left by a kill before its holder file.
  return now() - info.mtimeMs > LOCK_TEMP_AGE_MS;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
