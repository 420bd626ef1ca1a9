import { lstat, mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { acquireLock, type Lock } from '../state/lock.js';
import { RalphError } from '../util/errors.js';
import type { SessionLoopEntry, Write } from './decide.js';
import { LOOP_ID_PATTERN, loopIdOfFileName, sessionLoopPaths } from './paths.js';
import { parseSessionLoopFile } from './state-file.js';

/**
 * Reading and writing the loop files of one project. Every read-modify-write (the Stop hook,
 * start, cancel) happens under one lock per `.claude/` folder (state/lock.ts), held for
 * milliseconds: two sessions stopping at once must not both claim one loop, and a cancel must
 * not be undone by a hook that read the file just before.
 */

export async function readSessionLoopEntries(projectDir: string): Promise<SessionLoopEntry[]> {
  const paths = sessionLoopPaths(projectDir);
  let names: string[];
  try {
    names = await readdir(paths.claudeDir);
  } catch {
    return [];
  }
  const entries: SessionLoopEntry[] = [];
  for (const name of names.sort()) {
    const id = loopIdOfFileName(name);
    if (id === undefined) continue;
    const path = join(paths.claudeDir, name);
    entries.push(await readEntry(path, id, paths.journal(id)));
  }
  return entries;
}

async function readEntry(path: string, id: string, journalPath: string): Promise<SessionLoopEntry> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isSymbolicLink() === true) return { kind: 'symlink', id, path };
  if (stats !== undefined && !stats.isFile())
    return { kind: 'corrupt', id, path, reason: 'not a regular file' };
  if (!LOOP_ID_PATTERN.test(id))
    return { kind: 'corrupt', id, path, reason: `"${id}" is not a loop id (8 letters or digits)` };
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    return { kind: 'corrupt', id, path, reason: `unreadable (${errorCode(error)})` };
  }
  const parsed = parseSessionLoopFile(raw);
  if (!parsed.ok) return { kind: 'corrupt', id, path, reason: parsed.reason };
  if (parsed.file.state.loop_id !== id) {
    const reason = `loop_id ${parsed.file.state.loop_id} does not match the file name`;
    return { kind: 'corrupt', id, path, reason };
  }
  return { kind: 'loop', id, path, journalPath, raw, file: parsed.file };
}

/**
 * Applies writes in order. A failed state write stops here and is thrown (the caller must then
 * not block: an iteration it could not count would loop forever); journal trouble only warns.
 */
export async function applyWrites(writes: readonly Write[]): Promise<string[]> {
  const warnings: string[] = [];
  for (const write of writes) {
    if (write.kind === 'state') {
      await writeFileAtomic(write.path, write.content);
    } else if (write.kind === 'remove') {
      await unlink(write.path).catch((error: unknown) => {
        if (errorCode(error) !== 'ENOENT') throw error;
      });
    } else {
      await appendJournal(write.path, write.header, write.entry).catch((error: unknown) => {
        warnings.push(`ralph: could not write the journal ${write.path} (${errorCode(error)})`);
      });
    }
  }
  return warnings;
}

async function appendJournal(path: string, header: string, entry: string): Promise<void> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isSymbolicLink() === true)
    throw Object.assign(new Error('symlink'), { code: 'ELOOP' });
  const existing = stats === undefined ? header : await readFile(path, 'utf8');
  await writeFileAtomic(path, existing + entry);
}

const LOCK_WAIT_MS = 3000;
const LOCK_RETRY_MS = 15;

/** Runs `work` holding the project's loop lock; waits briefly for a concurrent holder. */
export async function withLoopLock<T>(
  projectDir: string,
  command: string,
  work: () => Promise<T>,
): Promise<T> {
  const { lockDir } = sessionLoopPaths(projectDir);
  await mkdir(lockDir, { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  let lock: Lock | undefined;
  while (lock === undefined) {
    try {
      lock = await acquireLock(lockDir, { pid: process.pid, command, now: new Date() });
    } catch (error) {
      // Another hook or command holds it for a few milliseconds: no event to wait on across
      // processes, so retry shortly until the deadline.
      if (!(error instanceof RalphError && error.code === 'LOCKED') || Date.now() > deadline)
        throw error;
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}
