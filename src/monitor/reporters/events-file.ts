import type { WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { LoopEvent, Reporter } from '../../core/events.js';
import { loopPaths } from '../../state/paths.js';
import { openForAppend } from '../../util/no-follow.js';
import { storageError, withStorageErrors } from '../../util/storage-errors.js';

/**
 * Appends every event to the loop directory's events.jsonl: what attach and the monitor follow.
 * One append-mode stream stays open for the run — opening the file per event cost more than the
 * agent's whole output at stream speed (bench/stream.bench.mjs). Each event is one line written
 * with O_APPEND, so a reader sees whole lines, and readers skip a torn last line after a crash.
 * When the disk falls behind, the returned promise holds the loop (and so the agent's output
 * pump) back instead of letting events pile up in memory. The file is opened on the first event
 * without following a link (util/no-follow.ts): a planted link fails the run with UNSAFE_FILE
 * before any agent starts; a link planted later does not matter, the open descriptor stays.
 */
export function eventsFileReporter(loopDir: string): Reporter {
  const file = loopPaths(loopDir).events;
  let opening: Promise<WriteStream> | undefined;
  let failure: Error | undefined;
  const stream = (): Promise<WriteStream> =>
    (opening ??= withStorageErrors(file, () => openForAppend(file)).then((handle) => {
      const opened = handle.createWriteStream();
      opened.on('error', (error) => {
        failure = storageError(error, file) ?? error;
      });
      return opened;
    }));
  return {
    async onEvent(event: LoopEvent) {
      const out = await stream();
      if (failure !== undefined) throw failure;
      if (!out.write(`${JSON.stringify(event)}\n`)) await once(out, 'drain');
    },
    async close() {
      // Never opened, or refused: the refusal was already thrown from onEvent.
      const out = await opening?.catch(() => undefined);
      if (out === undefined) return;
      await new Promise<void>((resolve, reject) => {
        out.end((error?: Error | null) => {
          if (error) reject(error);
          else resolve();
        });
      });
      if (failure !== undefined) throw failure;
    },
  };
}
