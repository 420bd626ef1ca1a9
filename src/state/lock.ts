import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, unlink } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { RalphError } from '../util/errors.js';
import { withStorageErrors } from '../util/storage-errors.js';
import { loopPaths } from './paths.js';
import {
  isOtherProcess,
  isProcessAlive,
  processStartOf as linuxProcessStart,
  type IsAlive,
  type ProcessStartOf,
} from './process-identity.js';

export { isProcessAlive, type IsAlive } from './process-identity.js';
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
  /** Which process had `pid` (process-identity.ts): a pid reused after a crash is not the holder. */
  processStart: z.string().optional(),
  /** The run's id, which the processes it started carry (agents/orphans.ts). */
  runId: z.string().optional(),
});
export type LockHolder = z.infer<typeof lockHolderSchema>;

export interface LockStatus {
  path: string;
  /** undefined when the lock cannot be parsed: such a lock is stale by definition. */
  holder: LockHolder | undefined;
  /** True when the holder still runs; a holder on another host is assumed alive (unknowable). */
  alive: boolean;
  /** Its pid runs, but another process has it now: the holder died and the pid was reused. */
  pidReused: boolean;
}

/** How to tell whether a holder still runs; injectable for tests. */
export interface LivenessProbe {
  isAlive?: IsAlive;
  processStartOf?: ProcessStartOf;
  hostname?: string;
}

export interface Lock {
  path: string;
  holder: LockHolder;
  warnings: string[];
  /** The dead holders this acquisition took over (their runs may have left processes). */
  tookOver: LockHolder[];
  /** Removes the lock if it is still ours; safe to call twice. */
  release(): Promise<void>;
}

export interface AcquireOptions extends LivenessProbe {
  pid: number;
  runId?: string;
  /** What holds the lock, shown to whoever is refused (e.g. `ralph run .ralph/feature-x`). */
  command: string;
  now: Date;
}

const HOLDER_FILE = /^holder-[0-9a-f]+\.json$/;
// Each round either wins, is refused, or removes one dead holder: a few rounds always suffice
// unless other starters keep winning and dying, which is worth an error rather than a spin.
const MAX_ROUNDS = 10;

export async function acquireLock(dir: string, options: AcquireOptions): Promise<Lock> {
  const lockPath = loopPaths(dir).lock;
  const host = options.hostname ?? osHostname();
  const probe = liveness(options);
  const processStart = probe.processStartOf(options.pid);
  const holder: LockHolder = {
    pid: options.pid,
    hostname: host,
    command: options.command,
    startedAt: options.now.toISOString(),
    ...(processStart === undefined ? {} : { processStart }),
    ...(options.runId === undefined ? {} : { runId: options.runId }),
  };
  const token = randomBytes(8).toString('hex');
  const holderName = `holder-${token}.json`;
  const temp = join(dirname(lockPath), `${basename(lockPath)}.${token}.tmp`);
  const warnings: string[] = [];
  const tookOver: LockHolder[] = [];
  try {
    // Inside the try: a full disk fails the holder file's write after the folder exists, and
    // the finally below must not leave that folder behind.
    await withStorageErrors(lockPath, () =>
      writeTempLock(temp, holderName, `${JSON.stringify(holder, null, 2)}\n`),
    );
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        await withStorageErrors(lockPath, () => rename(temp, lockPath));
        return makeLock(lockPath, join(lockPath, holderName), holder, warnings, tookOver);
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
      const current = await readHolder(lockPath, probe);
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
      if (await removeIgnoringGone(remove)) {
        warnings.push(staleWarning(current));
        if (current.holder !== undefined) tookOver.push(current.holder);
      }
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
  options: LivenessProbe = {},
): Promise<LockStatus | undefined> {
  const lockPath = loopPaths(dir).lock;
  const current = await readHolder(lockPath, liveness(options));
  if (current === undefined) return undefined;
  return {
    path: lockPath,
    holder: current.holder,
    alive: current.alive,
    pidReused: current.pidReused,
  };
}

function liveness(options: LivenessProbe): Required<LivenessProbe> {
  return {
    isAlive: options.isAlive ?? isProcessAlive,
    processStartOf: options.processStartOf ?? linuxProcessStart,
    hostname: options.hostname ?? osHostname(),
  };
}

function makeLock(
  path: string,
  holderFile: string,
  holder: LockHolder,
  warnings: string[],
  tookOver: LockHolder[],
): Lock {
  let released = false;
  return {
    path,
    holder,
    warnings,
    tookOver,
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
  pidReused: boolean;
}

async function readHolder(
  lockPath: string,
  probe: Required<LivenessProbe>,
): Promise<CurrentHolder | undefined> {
  let entries: string[];
  try {
    entries = await readdir(lockPath);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR')
      return { file: lockPath, holder: undefined, alive: false, pidReused: false };
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
  if (holder === undefined) return { file, holder, alive: false, pidReused: false };
  if (holder.hostname !== probe.hostname) return { file, holder, alive: true, pidReused: false };
  const running = probe.isAlive(holder.pid);
  const pidReused =
    running && isOtherProcess(holder.pid, holder.processStart, probe.processStartOf);
  return { file, holder, alive: running && !pidReused, pidReused };
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
  const reused = current.pidReused ? '; that pid now belongs to another process' : '';
  return `took over a stale lock left by pid ${pid} (started ${startedAt}, ${command}${reused})`;
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
