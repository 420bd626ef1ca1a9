import { appendFileSync } from 'node:fs';
import type { LoopEvent, Reporter } from '../../core/events.js';

/**
 * The session history in progress.txt: a row per attempt of an iteration (iteration, attempt,
 * time, story, result, session id, cost, tokens), plus a line for anything ralph undid and for
 * what the safety policies did (circuit breaker, usage limit, budget). progress.txt belongs to the
 * agent too, and it appends its own notes between ralph's rows, so every row carries its own
 * table header: each one renders as a table wherever it lands. ralph only ever appends, and
 * only between iterations.
 */
export function progressHistoryReporter(progressFile: string): Reporter {
  // Synchronous: one short line between iterations, where open, write and close each sent
  // through libuv's thread pool cost more than the append (issue 10: cost per iteration).
  const append = (text: string): Promise<void> =>
    new Promise((resolve) => {
      appendFileSync(progressFile, text, { flag: 'a' });
      resolve();
    });
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
              `${event.outcome}: ${event.detail}${safetyNote(event)}`,
            )} | ${event.sessionId ?? '-'} | ${event.costUsd === undefined ? '-' : `$${event.costUsd.toFixed(4)}`} | ${tokens(
              event.usage,
            )} |\n`,
          );
          return;
        case 'task_list_restored':
          await append(
            `\nralph: iteration ${event.iteration}: restored the task list from before the iteration: ${event.problems.join(
              '; ',
            )}${event.kept.length > 0 ? ` (kept: ${event.kept.join(', ')})` : ''}\n\n`,
          );
          return;
        case 'story_rejected':
          // Under the story's own heading, so the next iteration's agent reads why it was refused.
          await append(
            `\n### ${event.story.id} rejected by ralph (iteration ${event.iteration})\n\nralph set passes back to false: ${event.reason}. Fix this before claiming ${event.story.id} again.\n\n\`\`\`\n${event.outputTail.trimEnd()}\n\`\`\`\n`,
          );
          return;
        case 'breaker_changed':
          await append(
            `\nralph: ${event.at}: circuit breaker ${event.from} → ${event.to}: ${event.reason}\n`,
          );
          return;
        case 'usage_limit':
          await append(
            `\nralph: ${event.at}: usage limit (${event.message})${
              event.resetAt === undefined ? '' : `, resets ${event.resetAt}`
            }: ${event.action === 'wait' ? 'waiting for the reset' : 'exiting'}\n`,
          );
          return;
        case 'budget_exceeded':
          await append(`\nralph: ${event.at}: budget: ${event.message}\n`);
          return;
        case 'run_finished':
          await append(
            `\nralph: run ended ${event.at}: ${event.state} — ${event.reason}${
              event.hint === undefined ? '' : `\nralph: hint: ${event.hint}`
            }\n`,
          );
          return;
        default:
          return;
      }
    },
  };
}

/** What the safety policies made of the attempt, when it was more than an ordinary end. */
function safetyNote(event: Extract<LoopEvent, { type: 'iteration_finished' }>): string {
  if (event.classification === undefined || event.classification === 'none') return '';
  return ` [${event.classification.replace('_', ' ')}${event.willRetry === true ? ', trying again' : ''}]`;
}

function tokens(usage: Extract<LoopEvent, { type: 'iteration_finished' }>['usage']): string {
  if (usage === undefined) return '-';
  const input = usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
  return `${input} in / ${usage.outputTokens} out`;
}

/** A table cell: one line, no pipes. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 200);
}

const HEADER =
  '| iteration | attempt | time | story | result | session | cost | tokens |\n|---|---|---|---|---|---|---|---|\n';
