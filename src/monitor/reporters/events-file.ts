import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { LoopEvent, Reporter } from '../../core/events.js';
import { loopPaths } from '../../state/paths.js';

/**
 * Appends every event to the loop directory's events.jsonl: what attach and the monitor follow.
 * One append-mode stream stays open for the run — opening the file per event cost more than the
 * agent's whole output at stream speed (bench/stream.bench.mjs). Each event is one line written
 * with O_APPEND, so a reader sees whole lines, and readers skip a torn last line after a crash.
 * When the disk falls behind, the returned promise holds the loop (and so the agent's output
 * pump) back instead of letting events pile up in memory.
 */
export function eventsFileReporter(loopDir: string): Reporter {
  const stream = createWriteStream(loopPaths(loopDir).events, { flags: 'a' });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  return {
    async onEvent(event: LoopEvent) {
      if (failure !== undefined) throw failure;
      if (!stream.write(`${JSON.stringify(event)}\n`)) await once(stream, 'drain');
    },
    async close() {
      await new Promise<void>((resolve, reject) => {
        stream.end((error?: Error | null) => {
          if (error) reject(error);
          else resolve();
        });
      });
      if (failure !== undefined) throw failure;
    },
  };
}
