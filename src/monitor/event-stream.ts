import { readFile } from 'node:fs/promises';
import { loopPaths } from '../state/paths.js';
import { parseEventLine, type SequencedEvent } from './events.js';
import { followLines } from './follow.js';

/**
 * Follows a loop directory's events.jsonl from its first line: every event so far, then each
 * new one as the loop appends it. Sequence numbers count the file's non-blank lines (a line that
 * does not parse still takes its number), so they stay the same for every reader and restart.
 */
export function followEvents(
  loopDir: string,
  options: {
    signal: AbortSignal;
    onEvents: (events: SequencedEvent[]) => void | Promise<void>;
    pollMs?: number;
  },
): Promise<void> {
  let seq = 0;
  return followLines(loopPaths(loopDir).events, {
    signal: options.signal,
    onReset: () => {
      seq = 0;
    },
    ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
    onLines: async (lines) => {
      const events: SequencedEvent[] = [];
      for (const line of lines) {
        if (line.trim() === '') continue;
        seq += 1;
        const event = parseEventLine(line);
        if (event !== undefined) events.push({ seq, event });
      }
      if (events.length > 0) await options.onEvents(events);
    },
  });
}

/**
 * How many events events.jsonl holds now (complete non-blank lines), so a follower can tell the
 * history it replays from what happens after it started.
 */
export async function countEvents(loopDir: string): Promise<number> {
  const text = await readFile(loopPaths(loopDir).events, 'utf8').catch(() => '');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete.split('\n').filter((line) => line.trim() !== '').length;
}
