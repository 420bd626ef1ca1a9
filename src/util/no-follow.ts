import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { lstat, mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { RalphError } from './errors.js';

/**
 * Opening the files ralph appends to, rewrites in place or reads back to rewrite, in folders the
 * agent can write (progress.txt, events.jsonl, the iteration logs, the audit log, the task list).
 * The agent may have swapped such a file for a symbolic link (to ~/.bashrc, say), a hard link,
 * a FIFO or a device: ralph must never write through it, and never hang on it.
 *
 * - O_NOFOLLOW: a symbolic link as the last component fails to open (ELOOP) instead of being
 *   followed; the folders above are the person's choice and are followed.
 * - O_NONBLOCK: opening a FIFO returns at once instead of waiting for a peer forever.
 * - fstat after the open, on the descriptor itself (no race with a later swap): anything but a
 *   regular file with one link is refused. A hard link to a victim is an ordinary regular file
 *   to O_NOFOLLOW, and only its link count gives it away.
 * - A rewrite truncates only after that check (O_TRUNC at open would empty a hard-linked victim).
 *
 * Whole-file replacements go through writeFileAtomic, whose rename replaces a link rather than
 * writing through it.
 */

const { O_APPEND, O_CREAT, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants;

const APPEND_FLAGS = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK;
const WRITE_FLAGS = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK;
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

type Expected = 'file' | 'folder' | 'same-folder';

const EXPECTED: Record<Expected, string> = {
  file: 'a regular file of its own',
  folder: 'a folder of its own',
  'same-folder': 'the folder ralph started with',
};

/** A file or folder ralph refuses to touch; `code` is always UNSAFE_FILE. */
export class UnsafeFileError extends RalphError {
  /** What was found instead, e.g. "a symbolic link" or "a hard link (2 names for one file)". */
  readonly what: string;

  constructor(path: string, what: string, cause?: unknown, expected: Expected = 'file') {
    super('UNSAFE_FILE', `ralph refused to use ${path}: it is ${what}, not ${EXPECTED[expected]}`, {
      location: { file: path },
      hint:
        expected === 'same-folder'
          ? `ralph never writes through links: put the folder back in place of the link, check what the agent did, and start the run again`
          : `ralph never writes through links: remove ${path} (\`rm ${path}\`), check what it pointed to, and ralph creates a fresh ${expected}`,
      exitCode: 1,
      cause,
    });
    this.what = what;
  }
}

export function unsafeFileError(
  path: string,
  what: string,
  cause?: unknown,
  expected: 'file' | 'folder' = 'file',
): UnsafeFileError {
  return new UnsafeFileError(path, what, cause, expected);
}

export function isUnsafeFileError(error: unknown): error is UnsafeFileError {
  return error instanceof UnsafeFileError;
}

/**
 * Creates `dir` (and its parents) if needed and makes sure the folder itself is a real folder,
 * not a link: for folders ralph creates inside its loop directory (logs/), where a link planted
 * by the agent would send new files anywhere. The folders above are followed.
 */
export async function ownFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const stats = await lstat(dir);
  if (stats.isSymbolicLink()) throw unsafeFileError(dir, 'a symbolic link', undefined, 'folder');
  if (!stats.isDirectory()) throw unsafeFileError(dir, 'not a folder', undefined, 'folder');
}

/**
 * A check that `dir` still is the folder it was at the first check (same device and inode, links
 * followed): the loop directory may be reached through the person's own link, but an agent that
 * moves it away and leaves a link to another folder in its place must not get ralph's next writes
 * sent there. The first call pins; later calls throw UNSAFE_FILE when it changed.
 */
export function folderPin(dir: string): () => Promise<void> {
  let pinned: string | undefined;
  return async () => {
    const stats = await stat(dir);
    const now = `${stats.dev}:${stats.ino}`;
    pinned ??= now;
    if (pinned !== now) {
      throw new UnsafeFileError(
        dir,
        'another folder (moved away, or swapped for a link)',
        undefined,
        'same-folder',
      );
    }
  };
}

/** Opens `path` for appending, creating it if needed (mode 0644). */
export async function openForAppend(path: string): Promise<FileHandle> {
  return openChecked(path, APPEND_FLAGS);
}

/** Opens `path` for writing from the start: checked first, then truncated. */
export async function openForRewrite(path: string): Promise<FileHandle> {
  const handle = await openChecked(path, WRITE_FLAGS);
  try {
    await handle.truncate(0);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** The whole file as text, refusing a link or anything but a regular file. */
/** Opened for reading, without following a link (for reading parts of a large file). */
export async function openForRead(path: string): Promise<FileHandle> {
  return openChecked(path, READ_FLAGS);
}

export async function readFileNoFollow(path: string): Promise<string> {
  const handle = await openChecked(path, READ_FLAGS);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** One synchronous O_APPEND write: a whole line lands at once even with concurrent writers. */
export function appendFileNoFollowSync(path: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, APPEND_FLAGS, 0o644);
  } catch (error) {
    throw refusedOpen(path, error);
  }
  try {
    const problem = problemOf(fstatSync(fd));
    if (problem !== undefined) throw unsafeFileError(path, problem);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

async function openChecked(path: string, flags: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, flags, 0o644);
  } catch (error) {
    throw refusedOpen(path, error);
  }
  try {
    const problem = problemOf(await handle.stat());
    if (problem !== undefined) throw unsafeFileError(path, problem);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** ELOOP is Linux's and macOS's answer to O_NOFOLLOW on a link; EMLINK the BSDs'. */
function refusedOpen(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP' || code === 'EMLINK') return unsafeFileError(path, 'a symbolic link', error);
  if (code === 'ENXIO') return unsafeFileError(path, 'a FIFO or socket', error);
  if (code === 'EISDIR') return unsafeFileError(path, 'a folder', error);
  return error;
}

function problemOf(stats: Stats): string | undefined {
  if (stats.isFIFO()) return 'a FIFO';
  if (!stats.isFile()) return 'not a regular file (a device, socket or folder)';
  if (stats.nlink > 1) return `a hard link (${stats.nlink} names for one file)`;
  return undefined;
}
