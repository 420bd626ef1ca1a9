import type { LoopEvent, Reporter } from '../../core/events.js';

/** `ralph run --json`: exactly one LoopEvent per line, nothing else on stdout. */
export function jsonLinesReporter(write: (line: string) => void): Reporter {
  return {
    onEvent(event: LoopEvent) {
      write(JSON.stringify(event));
    },
  };
}
