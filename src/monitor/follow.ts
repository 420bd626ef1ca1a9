import { watch, type FSWatcher } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

export interface FollowOptions {
  /** Byte offset to start at (0: the whole file). */
  offset?: number;
  signal: AbortSignal;
  /** Complete lines in order, and the byte offset just past the last of them. */
  onLines: (lines: string[], offset: number) => void | Promise<void>;
  /**
   * A re-check interval for where fs.watch misses changes (network and some container
   * filesystems, editors that replace files); 0 turns it off. fs.watch is what makes updates
   * immediate; this only bounds the delay when it fails silently.
   */
  pollMs?: number;
  /** The file shrank or was replaced: what follows is read from its start again. */
  onReset?: () => void;
  /** Read once more after `signal` aborts: for a writer known to have finished (logs -f). */
  finalRead?: boolean;
}

export const DEFAULT_POLL_MS = 1000;
const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * `tail -f` for a line-oriented file (events.jsonl, an iteration log): reads from `offset`,
 * then again whenever the file's folder reports a change for it. Watching the folder rather than
 * the file also covers a file that does not exist yet or is replaced. Only complete lines are
 * delivered (a half-written line waits for its newline); a file that shrank or was replaced is
 * read again from the start. Resolves once `signal` aborts and everything is closed.
 */
export async function followLines(file: string, options: FollowOptions): Promise<void> {
  const { signal } = options;
  if (signal.aborted) return;
  let offset = options.offset ?? 0;
  let partial = Buffer.alloc(0);
  let inode: number | undefined;
  let watcher: FSWatcher | undefined;

  const readMore = async (final = false): Promise<void> => {
    const handle = await open(file, 'r').catch(() => undefined);
    if (handle === undefined) return; // not there yet: the folder watch tells us when it is
    try {
      const stats = await handle.stat();
      if (stats.size < offset || (inode !== undefined && stats.ino !== inode)) {
        offset = 0;
        partial = Buffer.alloc(0);
        options.onReset?.();
      }
      inode = stats.ino;
      while (offset < stats.size && (final || !signal.aborted)) {
        const length = Math.min(stats.size - offset, CHUNK);
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(buffer, 0, length, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        const data = Buffer.concat([partial, buffer.subarray(0, bytesRead)]);
        const end = data.lastIndexOf(NEWLINE);
        if (end === -1) {
          partial = data;
          continue;
        }
        partial = Buffer.from(data.subarray(end + 1));
        const lines = data.subarray(0, end).toString('utf8').split('\n');
        await options.onLines(lines, offset - partial.length);
      }
    } finally {
      await handle.close();
    }
  };

  // One read at a time; a change that arrives mid-read schedules exactly one more.
  let running: Promise<void> | undefined;
  // Counts changes reported while a read runs: any means one more read.
  let changes = 0;
  let failure: unknown;
  const drain = async (): Promise<void> => {
    let seen: number;
    do {
      seen = changes;
      await readMore();
    } while (changes !== seen && !signal.aborted);
  };
  const kick = (): void => {
    changes += 1;
    if (running !== undefined) return;
    running = drain()
      .catch((error: unknown) => {
        failure ??= error;
        stop();
      })
      .finally(() => {
        running = undefined;
      });
  };

  const name = basename(file);
  const startWatching = (): void => {
    if (watcher !== undefined) return;
    try {
      watcher = watch(dirname(file), (_event, changed) => {
        // Some platforms do not say which file changed: then any change may be ours.
        if (changed === null || changed === name) kick();
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined; // the poll below retries
      });
    } catch {
      watcher = undefined; // the folder does not exist yet: the poll retries
    }
  };

  let timer: NodeJS.Timeout | undefined;
  let stop = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    stop = () => {
      watcher?.close();
      if (timer !== undefined) clearInterval(timer);
      signal.removeEventListener('abort', stop);
      resolve();
    };
  });
  signal.addEventListener('abort', stop);
  startWatching();
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  if (pollMs > 0) {
    timer = setInterval(() => {
      startWatching();
      kick();
    }, pollMs);
  }
  kick();
  await done;
  // Let a read in progress finish its callback before the caller moves on.
  await running;
  if (options.finalRead === true && failure === undefined) await readMore(true);
  if (failure !== undefined) {
    throw failure instanceof Error ? failure : new Error(`cannot read ${file}`, { cause: failure });
  }
}
