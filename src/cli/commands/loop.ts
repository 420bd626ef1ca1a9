import { InvalidArgumentError } from '@commander-js/extra-typings';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loopGuide } from '../../session-loop/guide.js';
import { createLineReader } from '../../session-loop/line-reader.js';
import {
  cancelSessionLoops,
  listSessionLoops,
  newLoopId,
  startSessionLoop,
} from '../../session-loop/loops.js';
import { projectDirOf } from '../../session-loop/project.js';
import { readSessionLoopEntries } from '../../session-loop/store.js';
import { runWizard, WizardAborted } from '../../session-loop/wizard.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { ExitCode, reportError } from '../exit.js';
import { commandGroup, writeJson } from '../output.js';
import { loadCommandConfig } from '../settings.js';
import { printLoops, reportStarted } from './loop-report.js';

type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

/** `ralph loop start|list|cancel|help|wizard`: in-session loops driven by the Stop hook. */
export function loopCommand(
  context: CliContext,
  setExitCode: SetExitCode,
  stdin: Stdin = process.stdin,
) {
  const fail = (error: unknown, json = false) => {
    setExitCode(reportError(error, context, json));
  };
  const loop = commandGroup(
    'loop',
    'In-session loops: one Claude Code session gets the same prompt again at every stop (via ' +
      'the Stop hook, see `ralph setup`) until it prints the completion promise or reaches the ' +
      'iteration limit. Several sessions in a project each keep their own loop.',
    context,
  );

  loop
    .command('start')
    .description('Start a loop: writes .claude/ralph-loop-<id>.local.md and its journal.')
    .argument('[prompt...]', 'the prompt, stored verbatim (several words are joined by spaces)')
    .option('--prompt-file <file>', "read the prompt from a file ('-' for stdin)")
    .option(
      '--max-iterations <n>',
      'end after N iterations (0 = no limit, the backstop applies)',
      parseCount,
      0,
    )
    .option(
      '--completion-promise <text>',
      'end when Claude outputs <promise>TEXT</promise> (compared literally)',
    )
    .option('--json', 'print the new loop as JSON')
    .action(async (words, options) => {
      try {
        const prompt = await promptFrom(words, options.promptFile, context, stdin);
        const started = await startSessionLoop({
          projectDir: await projectDirOf(context.cwd),
          prompt,
          maxIterations: options.maxIterations,
          completionPromise: options.completionPromise,
          now: new Date(),
        });
        await reportStarted(started, options.maxIterations, context, options.json === true);
      } catch (error) {
        fail(error, options.json === true);
      }
    });

  loop
    .command('wizard')
    .description(
      'Guided start: task, checkable success criteria, limit and promise; then starts the loop.',
    )
    .argument('[task]', 'the task, if you already know it')
    .action(async (task) => {
      const reader = createLineReader(stdin);
      try {
        const id = newLoopId();
        const { backstopIterations } = (await loadCommandConfig(context)).loop;
        const answers = await runWizard(
          {
            ask: (question) => {
              context.stdout.write(question);
              return reader.next();
            },
            say: (text) => {
              writeLine(context.stdout, text);
            },
          },
          { loopId: id, task, backstopIterations },
        );
        reader.close();
        const started = await startSessionLoop({
          projectDir: await projectDirOf(context.cwd),
          now: new Date(),
          id,
          ...answers,
        });
        await reportStarted(started, answers.maxIterations, context, false);
      } catch (error) {
        reader.close();
        if (error instanceof WizardAborted) {
          writeLine(context.stderr, `ralph: ${error.message}; no loop was started`);
          setExitCode(ExitCode.failure);
          return;
        }
        fail(error);
      }
    });

  loop
    .command('list')
    .description(
      'List the loops of this project with their state (ACTIVE, UNCLAIMED, ORPHANED, …).',
    )
    .option('--json', 'print the loops as JSON')
    .action(async (options) => {
      try {
        const config = await loadCommandConfig(context);
        const loops = await listSessionLoops({
          projectDir: await projectDirOf(context.cwd),
          now: new Date(),
          orphanedAfterMinutes: config.loop.orphanedAfterMinutes,
        });
        if (options.json === true) writeJson(context, { loops });
        else printLoops(loops, context);
      } catch (error) {
        fail(error, options.json === true);
      }
    });

  loop
    .command('cancel')
    .description('Cancel one loop (by id or unique prefix), or all loops after a confirmation.')
    .argument('[id]', 'the loop to cancel (default: all loops)')
    .option('-y, --yes', 'cancel all loops without asking')
    .action(async (id, options) => {
      try {
        const projectDir = await projectDirOf(context.cwd);
        if (id === undefined && options.yes !== true) {
          const loops = await readSessionLoopEntries(projectDir);
          if (loops.length === 0) {
            writeLine(context.stdout, 'No loops to cancel.');
            return;
          }
          if (!(await confirmAll(loops, context, stdin))) {
            writeLine(context.stderr, 'Nothing cancelled.');
            setExitCode(ExitCode.failure);
            return;
          }
        }
        const removed = await cancelSessionLoops({
          projectDir,
          ids: id === undefined ? 'all' : [id],
          now: new Date(),
        });
        writeLine(
          context.stdout,
          removed.length === 0
            ? 'No loops to cancel.'
            : `Cancelled ${removed.join(', ')} (journals kept).`,
        );
      } catch (error) {
        fail(error);
      }
    });

  loop
    .command('help')
    .description('Explain in-session loops: setup, claiming, promises, limits.')
    .action(async () => {
      try {
        const config = await loadCommandConfig(context);
        context.stdout.write(loopGuide(config.loop.backstopIterations));
      } catch (error) {
        fail(error);
      }
    });
  return loop;
}

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return Number(value);
}

async function promptFrom(
  words: string[],
  file: string | undefined,
  context: CliContext,
  stdin: Stdin,
): Promise<string> {
  if (file !== undefined && words.length > 0)
    throw new RalphError(
      'USAGE',
      'give the prompt either as an argument or with --prompt-file, not both',
    );
  if (file === '-') return readStream(stdin);
  if (file !== undefined) {
    const path = resolve(context.cwd, file);
    return readFile(path, 'utf8').catch((error: unknown) => {
      throw new RalphError('IO', `cannot read the prompt file ${path}`, { cause: error });
    });
  }
  if (words.length === 0)
    throw new RalphError('USAGE', 'no prompt given', {
      hint: 'ralph loop start "PROMPT" [--max-iterations N] [--completion-promise TEXT], or `ralph loop wizard`',
    });
  return words.join(' ');
}

async function readStream(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function confirmAll(
  loops: readonly { id: string }[],
  context: CliContext,
  stdin: Stdin,
): Promise<boolean> {
  const reader = createLineReader(stdin);
  try {
    context.stdout.write(
      `Cancel all ${loops.length} loops (${loops.map((loop) => loop.id).join(', ')})? [y/N] `,
    );
    const answer = (await reader.next())?.trim().toLowerCase();
    return answer === 'y' || answer === 'yes';
  } finally {
    reader.close();
  }
}
