import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { RalphError } from '../../util/errors.js';
import { isUnsafeFileError, openForRewrite, ownFolder } from '../../util/no-follow.js';
import { storageError } from '../../util/storage-errors.js';

/**
 * The iteration log (logs/iteration-N-attempt-M.jsonl): the agent's stdout byte for byte, written
 * as it arrives, so a run that is killed still leaves everything it printed. The logs folder and
 * the file are the agent's to tamper with: a linked folder or file is refused (UNSAFE_FILE, see
 * util/no-follow.ts), never written through, and the file is emptied only after that check.
 */
export interface LogFile {
  /** Appends raw output; a promise means the disk is behind and the caller should wait. */
  write(chunk: Buffer): Promise<void> | undefined;
  /** Flushes and closes; rejects when any write failed. */
  close(): Promise<void>;
}

export async function openLogFile(file: string): Promise<LogFile> {
  // A full disk or a read-only mount says so, with the fix (util/storage-errors.ts).
  const ioError = (cause: unknown) =>
    storageError(cause, file) ??
    new RalphError('IO', `cannot write the agent log ${file}`, { exitCode: 1, cause });
  let stream: WriteStream;
  try {
    // Opened here, so a failure comes before the agent starts, not halfway through its run.
    await ownFolder(dirname(file));
    stream = (await openForRewrite(file)).createWriteStream();
  } catch (error) {
    if (isUnsafeFileError(error)) throw error;
    throw ioError(error);
  }
  // Errors are read from `stream.errored`; without a listener one would crash the process.
  stream.on('error', () => undefined);
  return {
    write(chunk) {
      if (stream.errored !== null) throw ioError(stream.errored);
      if (stream.write(chunk)) return undefined;
      // once() rejects if the stream fails instead of draining.
      return once(stream, 'drain').then(
        () => undefined,
        (error: unknown) => Promise.reject(ioError(error)),
      );
    },
    async close() {
      if (!stream.closed) {
        stream.end();
        await once(stream, 'close').catch(() => undefined);
      }
      if (stream.errored !== null) throw ioError(stream.errored);
    },
  };
}
