import { randomBytes } from 'node:crypto';
import { link, open, rename, stat, unlink } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import { RalphError } from '../util/errors.js';
import { loopPaths } from './paths.js';

/**
 * One writer per loop directory (design.md §2). The lock file is created whole or not at all:
 * its JSON is written and fsynced under a temp name, then hard-linked to the lock name, and
 * link() fails with EEXIST when the name is taken. So a reader never sees a half-written lock,
 * and of two racing starters exactly one links first.
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
  /** undefined when the file cannot be parsed: such a lock is stale by definition. */
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

/** process.kill(pid, 0) probes without signalling: ESRCH means gone, EPERM means someone else's live process. */
export const isProcessAlive: IsAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

// Racing with a holder that releases while we look: retry, but never spin forever.
const MAX_ATTEMPTS = 5;

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
  const content = `${JSON.stringify(holder, null, 2)}\n`;
  const temp = await writeTemp(lockPath, content);
  const warnings: string[] = [];
  try {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      try {
        await link(temp, lockPath);
        const { ino, dev } = await stat(lockPath);
        return makeLock(lockPath, holder, content, { ino, dev }, warnings);
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      const existing = await readExisting(lockPath);
      if (existing === undefined) continue; // released meanwhile: try again
      const status = toStatus(lockPath, existing.content, host, isAlive);
      if (status.alive && status.holder !== undefined) throw lockedError(dir, status.holder, host);
      if (await removeIfUnchanged(lockPath, existing)) warnings.push(staleWarning(status));
    }
    throw new RalphError('LOCKED', `could not acquire ${lockPath}: it keeps changing`, {
      hint: 'Another ralph is starting on this loop directory at the same moment; try again.',
    });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Who holds the lock of a loop directory, for `ralph status` and `ralph list`; undefined when free. */
export async function readLock(
  dir: string,
  options: { isAlive?: IsAlive; hostname?: string } = {},
): Promise<LockStatus | undefined> {
  const lockPath = loopPaths(dir).lock;
  const existing = await readExisting(lockPath);
  if (existing === undefined) return undefined;
  return toStatus(
    lockPath,
    existing.content,
    options.hostname ?? osHostname(),
    options.isAlive ?? isProcessAlive,
  );
}

interface FileIdentity {
  ino: number;
  dev: number;
}

function makeLock(
  path: string,
  holder: LockHolder,
  content: string,
  identity: FileIdentity,
  warnings: string[],
): Lock {
  let released = false;
  return {
    path,
    holder,
    warnings,
    async release() {
      if (released) return;
      released = true;
      const current = await readExisting(path);
      // Someone may have taken it over (e.g. after judging us dead from another host's view).
      if (current?.content !== content || !sameFile(current, identity)) return;
      await unlink(path).catch((error: unknown) => {
        if (errorCode(error) !== 'ENOENT') throw error;
      });
    },
  };
}

async function writeTemp(lockPath: string, content: string): Promise<string> {
  const temp = join(
    dirname(lockPath),
    `${basename(lockPath)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  let handle;
  try {
    handle = await open(temp, 'wx', 0o644);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      throw new RalphError(
        'LOOP_DIR_NOT_FOUND',
        `loop directory ${dirname(lockPath)} does not exist`,
        {
          hint: 'Create it with `ralph init`, or check the path.',
          cause: error,
        },
      );
    }
    throw error;
  }
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temp;
}

interface ExistingLock extends FileIdentity {
  content: string;
}

async function readExisting(path: string): Promise<ExistingLock | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    // Identity and content from one open file: the name may be replaced between two calls.
    const { ino, dev } = await handle.stat();
    return { ino, dev, content: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

function toStatus(path: string, content: string, host: string, isAlive: IsAlive): LockStatus {
  const holder = parseHolder(content);
  if (holder === undefined) return { path, holder, alive: false };
  const alive = holder.hostname !== host || isAlive(holder.pid);
  return { path, holder, alive };
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
 * Removes a stale lock only if it is still the file we judged. There is no compare-and-delete
 * on files, so move it aside under a unique name (only one mover can succeed) and check it is
 * the same inode; if a racer replaced it meanwhile, put theirs back. The remaining window (a
 * third starter linking in the instant before the put-back) needs three simultaneous starters
 * and a stale lock at once.
 */
async function removeIfUnchanged(lockPath: string, judged: ExistingLock): Promise<boolean> {
  const aside = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
  const moved = await stat(aside);
  if (sameFile(moved, judged)) {
    await unlink(aside);
    return true;
  }
  try {
    await link(aside, lockPath);
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw error;
  }
  await unlink(aside);
  return false;
}

function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

function staleWarning(status: LockStatus): string {
  if (status.holder === undefined) return `took over an unreadable lock file ${status.path}`;
  const { pid, startedAt, command } = status.holder;
  return `took over a stale lock left by pid ${pid} (started ${startedAt}, ${command})`;
}

function lockedError(dir: string, holder: LockHolder, host: string): RalphError {
  const where = holder.hostname === host ? '' : ` on host ${holder.hostname}`;
  return new RalphError(
    'LOCKED',
    `${dir} is in use by pid ${holder.pid}${where} (${holder.command}, started ${holder.startedAt})`,
    {
      hint:
        where === ''
          ? `Wait for it to finish, or stop it with \`kill -INT ${holder.pid}\` (it pauses and can be resumed).`
          : `Stop it on ${holder.hostname}; if it is gone, delete ${loopPaths(dir).lock}.`,
    },
  );
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
