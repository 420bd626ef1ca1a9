import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { RalphError } from '../util/errors.js';
import { loopPaths } from './paths.js';

/**
 * One writer per loop directory (design.md §2).
 *
 * The lock is a folder, `.ralph.lock/`, holding one `holder-<token>.json`. Why not a plain file
 * made with link(): taking over a stale lock needs "remove it only if it is still the dead one",
 * and a fixed file name gives no such operation, so two starters that both judged the same lock
 * stale could both end up holding it (a test reproduces this). Inside a folder the holder file's
 * name is unique per acquisition, which makes both steps conditional:
 *  - acquire = rename a fully written, fsynced temp folder onto `.ralph.lock`; rename succeeds only
 *    if that name is absent or an empty folder, so a half-written lock is never visible and of
 *    racing starters exactly one wins;
 *  - take over = unlink the dead holder's file by its unique name (fails if someone already did),
 *    which empties the folder so the next rename can win;
 *  - release = unlink our own holder file (fails if it is no longer ours), then rmdir.
 * A crash between those steps leaves an empty folder, which the next rename simply replaces.
 */

const lockHolderSchema = z.looseObject({
  pid: z.int().positive(),
  hostname: z.string(),
  command: z.string(),
  startedAt: z.string(),
});
export type LockHolder = z.infer<typeof lockHolderSchema>;

export type IsAlive = (pid: number) => boolean;

export interface LockStatus {
  path: string;
  /** undefined when the lock cannot be parsed: such a lock is stale by definition. */
  holder: LockHolder | undefined;
  /** True when the holder still runs; a holder on another host is assumed alive (unknowable). */
  alive: boolean;
}

export interface Lock {
  path: string;
  holder: LockHolder;
  warnings: string[];
  /** Removes the lock if it is still ours; safe to call twice. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  pid: number;
  /** What holds the lock, shown to whoever is refused (e.g. `ralph run .ralph/feature-x`). */
  command: string;
  now: Date;
  isAlive?: IsAlive;
  hostname?: string;
}

/** Signal 0 probes without signalling: ESRCH means gone, EPERM means someone else's live process. */
export const isProcessAlive: IsAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return !isZombie(pid);
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
};

const HOLDER_FILE = /^holder-[0-9a-f]+\.json$/;
// Each round either wins, is refused, or removes one dead holder: a few rounds always suffice
// unless other starters keep winning and dying, which is worth an error rather than a spin.
const MAX_ROUNDS = 10;

export async function acquireLock(dir: string, options: AcquireOptions): Promise<Lock> {
  const lockPath = loopPaths(dir).lock;
  const host = options.hostname ?? osHostname();
  const isAlive = options.isAlive ?? isProcessAlive;
  const holder: LockHolder = {
    pid: options.pid,
    hostname: host,
    command: options.command,
    startedAt: options.now.toISOString(),
  };
  const token = randomBytes(8).toString('hex');
  const holderName = `holder-${token}.json`;
  const temp = join(dirname(lockPath), `${basename(lockPath)}.${token}.tmp`);
  await writeTempLock(temp, holderName, `${JSON.stringify(holder, null, 2)}\n`);
  const warnings: string[] = [];
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        await rename(temp, lockPath);
        return makeLock(lockPath, join(lockPath, holderName), holder, warnings);
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOTDIR') {
          // Not a lock of ours (a plain file): unlink cannot remove a folder, so this can
          // never delete a real lock that appeared meanwhile.
          if (await removeIgnoringGone(() => unlink(lockPath), ['EISDIR', 'EPERM'])) {
            warnings.push(`took over an unreadable lock (${lockPath})`);
          }
          continue;
        }
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
      }
      const current = await readHolder(lockPath, host, isAlive);
      if (current === undefined) continue; // released meanwhile
      if (current.alive && current.holder !== undefined) {
        throw lockedError(dir, lockPath, current.holder, host);
      }
      // Inside the folder every name is unique to one acquisition, so removing the entry we
      // judged cannot hit a newer lock; the lock path itself is only ever unlinked (see above).
      const remove =
        current.file === lockPath
          ? () => unlink(lockPath)
          : () => rm(current.file, { recursive: true });
      if (await removeIgnoringGone(remove)) warnings.push(staleWarning(current));
    }
    throw new RalphError('LOCKED', `could not acquire ${lockPath}: it keeps changing hands`, {
      hint: 'Other ralph runs are starting on this loop directory at the same moment; try again.',
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Who holds the lock of a loop directory, for `ralph status` and `ralph list`; undefined when free. */
export async function readLock(
  dir: string,
  options: { isAlive?: IsAlive; hostname?: string } = {},
): Promise<LockStatus | undefined> {
  const lockPath = loopPaths(dir).lock;
  const current = await readHolder(
    lockPath,
    options.hostname ?? osHostname(),
    options.isAlive ?? isProcessAlive,
  );
  if (current === undefined) return undefined;
  return { path: lockPath, holder: current.holder, alive: current.alive };
}

function makeLock(path: string, holderFile: string, holder: LockHolder, warnings: string[]): Lock {
  let released = false;
  return {
    path,
    holder,
    warnings,
    async release() {
      if (released) return;
      released = true;
      // Our file is gone only if someone judged us dead and took over: then the lock is theirs.
      if (!(await removeIgnoringGone(() => unlink(holderFile)))) return;
      await rmdir(path).catch((error: unknown) => {
        // A new holder may already have moved in (ENOTEMPTY), or the folder is gone.
        const code = errorCode(error);
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw error;
      });
    },
  };
}

async function writeTempLock(temp: string, holderName: string, content: string): Promise<void> {
  try {
    await mkdir(temp);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      const loopDir = dirname(temp);
      throw new RalphError('LOOP_DIR_NOT_FOUND', `loop directory ${loopDir} does not exist`, {
        hint: 'Create it with `ralph init`, or check the path.',
        cause: error,
      });
    }
    throw error;
  }
  const handle = await open(join(temp, holderName), 'wx', 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

interface CurrentHolder {
  /** The entry to remove to take this lock over: the holder file, or a stray entry. */
  file: string;
  holder: LockHolder | undefined;
  alive: boolean;
}

async function readHolder(
  lockPath: string,
  host: string,
  isAlive: IsAlive,
): Promise<CurrentHolder | undefined> {
  let entries: string[];
  try {
    entries = await readdir(lockPath);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') return { file: lockPath, holder: undefined, alive: false };
    throw error;
  }
  const name = entries.find((entry) => HOLDER_FILE.test(entry)) ?? entries[0];
  // An empty folder is a lock being released or taken over, or left by a crash: free.
  if (name === undefined) return undefined;
  const file = join(lockPath, name);
  const content = await readFile(file, 'utf8').catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'EISDIR') return '';
    throw error;
  });
  const holder = HOLDER_FILE.test(name) ? parseHolder(content) : undefined;
  if (holder === undefined) return { file, holder, alive: false };
  return { file, holder, alive: holder.hostname !== host || isAlive(holder.pid) };
}

function parseHolder(content: string): LockHolder | undefined {
  try {
    const parsed = lockHolderSchema.safeParse(JSON.parse(content));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs a removal; false when the entry was already gone (someone else got there first) or, for
 * `alsoLost`, had become something this removal must not touch (a folder: a new lock).
 */
async function removeIgnoringGone(
  remove: () => Promise<unknown>,
  alsoLost: readonly string[] = [],
): Promise<boolean> {
  try {
    await remove();
    return true;
  } catch (error) {
    const code = errorCode(error) ?? '';
    if (code === 'ENOENT' || alsoLost.includes(code)) return false;
    throw error;
  }
}

function staleWarning(current: CurrentHolder): string {
  if (current.holder === undefined) return `took over an unreadable lock (${current.file})`;
  const { pid, startedAt, command } = current.holder;
  return `took over a stale lock left by pid ${pid} (started ${startedAt}, ${command})`;
}

function lockedError(dir: string, lockPath: string, holder: LockHolder, host: string): RalphError {
  const remote = holder.hostname !== host;
  const where = remote ? ` on host ${holder.hostname}` : '';
  return new RalphError(
    'LOCKED',
    `${dir} is in use by pid ${holder.pid}${where} (${holder.command}, started ${holder.startedAt})`,
    {
      hint: remote
        ? `Stop it on ${holder.hostname}; if it is no longer running, delete ${lockPath}.`
        : `Wait for it to finish, or stop it with \`kill -INT ${holder.pid}\` (it pauses and can be resumed).`,
    },
  );
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/**
 * A process that has exited but was not reaped (a container whose pid 1 does not reap orphans)
 * still answers signal 0: on Linux /proc says it is a zombie (state Z), i.e. gone. Elsewhere
 * there is no /proc and the signal's answer stands.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces and parentheses: the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
