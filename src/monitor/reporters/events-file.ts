import type { LoopEvent, Reporter } from '../../core/events.js';
import { appendEvent } from '../../state/events-log.js';

/** Appends every event to the loop directory's events.jsonl: what attach and the monitor follow. */
export function eventsFileReporter(loopDir: string): Reporter {
  return {
    onEvent: (event: LoopEvent) => appendEvent(loopDir, event),
  };
}
