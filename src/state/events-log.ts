import { appendFile, readFile } from 'node:fs/promises';
import { loopPaths } from './paths.js';

/**
 * events.jsonl: one JSON object per line, appended. Each event is a single write() on a file
 * opened with O_APPEND, so a reader (attach, monitor) never sees half a line from us and a crash
 * loses at most the event being written.
 */
export async function appendEvent(dir: string, event: object): Promise<void> {
  await appendFile(loopPaths(dir).events, `${JSON.stringify(event)}\n`, { flag: 'a' });
}

/** Every complete line of events.jsonl parsed; a torn last line (crash mid-write) is skipped. */
export async function readEvents(dir: string): Promise<unknown[]> {
  const text = await readFile(loopPaths(dir).events, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  });
  const events: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // only the last line can be torn; anything else would be another writer's bug
    }
  }
  return events;
}
