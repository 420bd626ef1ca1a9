import { createReadStream } from 'node:fs';
import { DEFAULT_MAX_LINE_BYTES, pumpLines } from '../line-splitter.js';
import { createRunCollector, type CollectedRun } from './run-collector.js';
import { parseStreamLine } from './stream-parser.js';

export interface LogSummary extends CollectedRun {
  /** Lines that were not stream-json ralph understands (banners, trailers, new event types). */
  unknownLines: number;
  /** How often each tool was called, in order of first use. */
  toolCounts: Record<string, number>;
}

/**
 * Reads one iteration log (stream-json, as Claude Code printed it) the way the loop read it
 * live, streaming, so a log of any size is summarised in constant memory.
 */
export async function summariseLog(file: string): Promise<LogSummary> {
  const collector = createRunCollector();
  let unknownLines = 0;
  const toolCounts: Record<string, number> = {};
  // Capped like a live run's lines: an older log may hold a line of hundreds of megabytes.
  await pumpLines(createReadStream(file), {
    maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    onLine: (line) => {
      if (line.trim() === '') return;
      const parsed = parseStreamLine(line);
      if (parsed.events.every((event) => event.type === 'unknown')) unknownLines += 1;
      for (const event of parsed.events) {
        if (event.type === 'tool_use')
          toolCounts[event.call.name] = (toolCounts[event.call.name] ?? 0) + 1;
      }
      collector.add(parsed);
    },
  });
  return { ...collector.collected(), unknownLines, toolCounts };
}
