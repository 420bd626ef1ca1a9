import { readFile } from 'node:fs/promises';
import { loopPaths } from './paths.js';

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
