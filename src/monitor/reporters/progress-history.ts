import { dirname } from 'node:path';
import type { LoopEvent, Reporter } from '../../core/events.js';
import { folderPin, isUnsafeFileError, openForAppend } from '../../util/no-follow.js';
import { escapeControlCharacters } from '../../util/control-chars.js';

/**
 * The session history in progress.txt: a row per attempt of an iteration (iteration, attempt,
 * time, story, result, session id, cost, tokens), plus a line for anything ralph undid and for
 * what the safety policies did (circuit breaker, usage limit, budget). progress.txt belongs to the
 * agent too, and it appends its own notes between ralph's rows, so every row carries its own
 * table header: each one renders as a table wherever it lands. ralph only ever appends, and
 * only between iterations.
 *
 * Because the agent owns the file, it may have swapped it for a link to ~/.bashrc and put a
 * newline in a story id to make ralph's line a command there. So the append never follows a link
 * (util/no-follow.ts): a refused file costs the history, reported once through `warn`, and the
 * run goes on. And every value interpolated into a line has its control characters escaped
 * (`line` below), so nothing ralph writes here starts a line of the agent's choosing.
 */
export function progressHistoryReporter(
  progressFile: string,
  warn: (message: string) => void = () => undefined,
): Reporter {
  let warned = false;
  const sameFolder = folderPin(dirname(progressFile));
  const append = async (text: string): Promise<void> => {
    let handle;
    try {
      await sameFolder();
      handle = await openForAppend(progressFile);
    } catch (error) {
      if (!isUnsafeFileError(error)) throw error;
      if (!warned) warn(`${error.message}; the session history is not written (${error.hint})`);
      warned = true;
      return;
    }
    try {
      await handle.write(text);
    } finally {
      await handle.close();
    }
  };
  return {
    async onEvent(event: LoopEvent) {
      switch (event.type) {
        case 'run_started':
          await append(
            line`\n## ralph session history (run started ${event.at}${
              event.resumedAfterIteration > 0
                ? `, resuming after iteration ${event.resumedAfterIteration}`
                : ''
            })\n`,
          );
          return;
        case 'iteration_finished':
          await append(
            `\n${HEADER}${line`| ${event.iteration} | ${event.attempt} | ${event.at} | ${cell(event.story.id)} | ${cell(
              `${event.outcome}: ${event.detail}${safetyNote(event)}`,
            )} | ${event.sessionId ?? '-'} | ${event.costUsd === undefined ? '-' : `$${event.costUsd.toFixed(4)}`} | ${tokens(
              event.usage,
            )} |\n`}`,
          );
          return;
        case 'task_list_restored':
          await append(
            line`\nralph: iteration ${event.iteration}: restored the task list from before the iteration${
              event.atRunStart === true
                ? ' (at the start of the next run: ralph had been stopped while the agent ran)'
                : ''
            }: ${event.problems.join(
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
            line`\nralph: ${event.at}: circuit breaker ${event.from} → ${event.to}: ${event.reason}\n`,
          );
          return;
        case 'usage_limit':
          await append(
            line`\nralph: ${event.at}: usage limit (${event.message})${
              event.resetAt === undefined ? '' : `, resets ${event.resetAt}`
            }: ${event.action === 'wait' ? 'waiting for the reset' : 'exiting'}\n`,
          );
          return;
        case 'budget_exceeded':
          await append(line`\nralph: ${event.at}: budget: ${event.message}\n`);
          return;
        case 'run_finished':
          await append(
            line`\nralph: run ended ${event.at}: ${event.state} — ${event.reason}` +
              (event.hint === undefined ? '' : line`\nralph: hint: ${event.hint}`) +
              '\n',
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

/**
 * A template whose every interpolated value has its control characters escaped: the literal
 * parts are ralph's own layout, the values may carry agent text.
 */
function line(parts: TemplateStringsArray, ...values: unknown[]): string {
  return parts.reduce(
    (text, part, index) =>
      index === 0 ? part : `${text}${escapeControlCharacters(String(values[index - 1]))}${part}`,
    '',
  );
}

/** A table cell: one line, no pipes. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '/').slice(0, 200);
}

const HEADER =
  '| iteration | attempt | time | story | result | session | cost | tokens |\n|---|---|---|---|---|---|---|---|\n';
