import { RalphError, type ErrorCode } from './errors.js';

/**
 * The filesystem refusing a write of ralph's own state (status.json, events.jsonl, the logs, the
 * lock, the task-list snapshot) is the person's to fix, not a bug in ralph: a full disk, a
 * read-only mount, a folder they cannot write. Each becomes a RalphError naming the path and the
 * fix, so `ralph run` ends PAUSED with a sentence instead of "internal error".
 */

const STORAGE = {
  ENOSPC: {
    code: 'NO_SPACE',
    what: 'the disk is full',
    hint: 'free some space on that disk (df -h shows how much is left), then run again: the run resumes',
  },
  EDQUOT: {
    code: 'NO_SPACE',
    what: 'the disk quota is used up',
    hint: 'free some space within your quota (quota -s), then run again: the run resumes',
  },
  EROFS: {
    code: 'READ_ONLY',
    what: 'the filesystem is read-only',
    hint: 'remount it read-write (or use a loop directory on a writable disk: ralph run DIR), then run again',
  },
  EACCES: {
    code: 'NO_PERMISSION',
    what: 'permission denied',
    hint: 'make the file and its folder writable for this user (ls -ld; chmod u+w or chown), then run again',
  },
  EPERM: {
    code: 'NO_PERMISSION',
    what: 'the operation is not permitted',
    hint: 'check the file and folder attributes (lsattr: an immutable file; chmod/chown), then run again',
  },
} as const;

type StorageErrno = keyof typeof STORAGE;

function errnoOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String(error.code)
    : undefined;
}

const STORAGE_CODES: ReadonlySet<ErrorCode> = new Set(
  Object.values(STORAGE).map((each) => each.code),
);

/** A RalphError that storageError made: the run is PAUSED (resumable), not in ERROR. */
export function isStorageError(error: unknown): error is RalphError {
  return error instanceof RalphError && STORAGE_CODES.has(error.code);
}

/**
 * `error` as a RalphError naming `path` when it is a full disk, a read-only filesystem or a
 * permission problem; undefined for anything else (and for RalphErrors, which already explain
 * themselves). Without `path`, the one the error itself carries (fs errors from open, mkdir and
 * rename do; a write to an open descriptor does not).
 */
export function storageError(error: unknown, path?: string): RalphError | undefined {
  if (error instanceof RalphError) return undefined;
  const errno = errnoOf(error);
  if (errno === undefined || !(errno in STORAGE)) return undefined;
  const known = STORAGE[errno as StorageErrno];
  const carried =
    typeof error === 'object' && error !== null && 'path' in error ? String(error.path) : undefined;
  const where = path ?? carried;
  const subject = where === undefined ? 'ralph could not write its state' : `cannot write ${where}`;
  return new RalphError(known.code, `${subject}: ${known.what} (${errno})`, {
    hint: known.hint,
    exitCode: 1,
    cause: error,
    ...(where === undefined ? {} : { location: { file: where } }),
  });
}

/** Runs `write`; a storage failure comes back as storageError's RalphError naming `path`. */
export async function withStorageErrors<T>(path: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw storageError(error, path) ?? error;
  }
}
