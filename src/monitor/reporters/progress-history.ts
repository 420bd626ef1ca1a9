import { appendFile } from 'node:fs/promises';
import type { LoopEvent, Reporter } from '../../core/events.js';

/**
 * The session history in progress.txt: a row per iteration (iteration, attempt, time, story,
 * result, session id, cost), plus a line for anything ralph undid. progress.txt belongs to the
 * agent too, and it appends its own notes between ralph's rows, so every row carries its own
 * table header: each one renders as a table wherever it lands. ralph only ever appends, and
 * only between iterations.
 */
export function progressHistoryReporter(progressFile: string): Reporter {
  const append = (text: string): Promise<void> => appendFile(progressFile, text, { flag: 'a' });
  return {
    async onEvent(event: LoopEvent) {
      switch (event.type) {
        case 'run_started':
          await append(
            `\n## ralph session history (run started ${event.at}${
              event.resumedAfterIteration > 0
                ? `, resuming after iteration ${event.resumedAfterIteration}`
                : ''
            })\n`,
          );
          return;
        case 'iteration_finished':
          await append(
            `\n${HEADER}| ${event.iteration} | ${event.attempt} | ${event.at} | ${cell(event.story.id)} | ${cell(
              `${event.outcome}: ${event.detail}`,
            )} | ${event.sessionId ?? '-'} | ${event.costUsd === undefined ? '-' : `$${event.costUsd.toFixed(4)}`} |\n`,
          );
          return;
        case 'task_list_restored':
          await append(
            `\nralph: iteration ${event.iteration}: restored the task list from before the iteration: ${event.problems.join(
              '; ',
            )}${event.kept.length > 0 ? ` (kept: ${event.kept.join(', ')})` : ''}\n\n`,
          );
          return;
        case 'run_finished':
          await append(`\nralph: run ended ${event.at}: ${event.state} — ${event.reason}\n`);
          return;
        default:
          return;
      }
    },
  };
}

/** A table cell: one line, no pipes. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 200);
}

const HEADER =
  '| iteration | attempt | time | story | result | session | cost |\n|---|---|---|---|---|---|---|\n';
