import { InvalidArgumentError } from '@commander-js/extra-typings';
import { relative } from 'node:path';
import {
  addStory,
  correctStory,
  newAmendmentId,
  usage,
  type AmendOutcome,
} from '../../plan/amend.js';
import {
  loadAmendFiles,
  planPaths,
  refuseWhileRunning,
  writeAmendment,
  type PlanPaths,
} from '../../plan/amend-files.js';
import { commandLine } from '../../plan/amend-render.js';
import { removeStory } from '../../plan/amend-remove.js';
import { amendStatus, formatAmendStatus } from '../../plan/amend-status.js';
import { parseSpec } from '../../plan/spec.js';
import type { AmendFiles } from '../../plan/amend.js';

import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { commandGroup, writeJson } from '../output.js';
import { loadCommandLoop } from '../settings.js';
import { createAsker, type Asker, type Stdin } from './amend-ask.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function parsePriority(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return n;
}

/**
 * `ralph amend add | correct | remove | status`: change requirements while a feature is being
 * built, with an audit trail (Ralph Hybrid spec, Amendment System). Flags for scripts; on a
 * terminal, whatever a flag did not give is asked for, and warnings are confirmed.
 */
export function amendCommand(
  context: CliContext,
  setExitCode: SetExitCode,
  stdin: Stdin = process.stdin,
) {
  const amend = commandGroup(
    'amend',
    'Change the plan during implementation without losing progress: add a story, correct one,\n' +
      'or descope one (kept under Descoped Stories). Each amendment gets the next AMD-NNN (never\n' +
      'reused) and is recorded in spec.md, prd.json (the story\'s "amendment") and progress.txt.\n' +
      'Refused while a run holds the loop directory.',
    context,
  );

  const run = async (
    dir: string | undefined,
    words: string[],
    yes: boolean | undefined,
    make: (files: AmendFiles, ask: Asker) => Promise<AmendOutcome>,
  ) => {
    const ask = createAsker(stdin, context);
    try {
      const paths = await pathsFor(dir, context);
      await refuseWhileRunning(paths.dir, 'amend the plan');
      const files = await loadAmendFiles(
        paths,
        new Date(),
        commandLine(['ralph', 'amend', ...words]),
      );
      const outcome = await make(files, ask);
      for (const warning of outcome.warnings)
        writeLine(context.stderr, `ralph: warning: ${warning}`);
      if (outcome.warnings.length > 0 && yes !== true && !(await ask.confirm('Proceed?'))) {
        writeLine(context.stderr, 'ralph: cancelled; nothing was written');
        setExitCode(1);
        return;
      }
      await writeAmendment(paths, files, outcome);
      for (const line of outcome.summary) writeLine(context.stdout, line);
      writeLine(
        context.stdout,
        `Updated ${shown(paths, context)}: spec.md, prd.json, progress.txt`,
      );
    } catch (error) {
      setExitCode(reportError(error, context, false));
    } finally {
      ask.close();
    }
  };

  amend
    .command('add')
    .description('Add a story discovered during implementation (every passes is kept).')
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--title <text>', 'the story title')
    .option('--description <text>', 'what to build (As a … I want … so that …)')
    .option('--criterion <text>', 'an acceptance criterion (repeat for each)', collect, [])
    .option('--priority <n>', 'priority (default: after every existing story)', parsePriority)
    .option('--insert-after <id>', 'give it a decimal id right after this story (STORY-002.1)')
    .option('--reason <text>', 'why it is needed (default: the description)')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .action(async (dir, options) => {
      const words = ['add', options.title ?? ''];
      await run(dir, words, options.yes, async (files, ask) =>
        addStory(files, {
          title: await ask.required(options.title, '--title', 'Title of the new story'),
          description: await ask.required(options.description, '--description', 'Description'),
          criteria: await ask.list(options.criterion, '--criterion', 'Acceptance criteria'),
          priority: options.priority,
          insertAfter: options.insertAfter,
          reason: options.reason,
        }),
      );
    });

  amend
    .command('correct')
    .description('Fix or clarify a story; a passing story is reset to passes: false.')
    .argument('<story-id>', 'the story to correct')
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--title <text>', 'the corrected title')
    .option('--description <text>', 'the corrected description')
    .option(
      '--criterion <text>',
      'the corrected acceptance criteria (repeat; replaces all)',
      collect,
      [],
    )
    .option('--reason <text>', 'why the story changes (required)')
    .option('--reset-dependents', 'also reset passing stories that depend on this one')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .action(async (storyId, dir, options) => {
      await run(dir, ['correct', storyId], options.yes, async (files, ask) => {
        const criteria = options.criterion.length > 0 ? options.criterion : undefined;
        let { title, description } = options;
        if (title === undefined && description === undefined && criteria === undefined) {
          if (!ask.interactive) {
            throw usage(
              `nothing to correct in ${storyId}`,
              'pass --title, --description and/or --criterion',
            );
          }
          title = (await ask.optional('New title (empty: keep)')) ?? undefined;
          description = (await ask.optional('New description (empty: keep)')) ?? undefined;
        }
        return correctStory(files, {
          storyId,
          title,
          description,
          criteria,
          reason: await ask.required(options.reason, '--reason', 'Reason for the correction'),
          resetDependents: options.resetDependents,
        });
      });
    });

  amend
    .command('remove')
    .description('Descope a story: it moves under Descoped Stories in spec.md, never deleted.')
    .argument('<story-id>', 'the story to descope')
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--reason <text>', 'why it is descoped (required)')
    .option('--with-dependents', 'also descope the stories that depend on it')
    .option('-y, --yes', 'do not ask for confirmation on a terminal')
    .action(async (storyId, dir, options) => {
      await run(dir, ['remove', storyId], options.yes, async (files, ask) =>
        removeStory(files, {
          storyId,
          reason: await ask.required(options.reason, '--reason', 'Reason for removing it'),
          withDependents: options.withDependents,
        }),
      );
    });

  amend
    .command('status')
    .description('Show the amendment history, descoped stories and the next AMD id.')
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--json', 'print it as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const paths = await pathsFor(dir, context);
        const files = await loadAmendFiles(paths, new Date(), '');
        const status = amendStatus(
          parseSpec(files.specText, files.specFile),
          files.prd,
          newAmendmentId(files),
        );
        if (json) writeJson(context, status);
        else for (const line of formatAmendStatus(status)) writeLine(context.stdout, line);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
  return amend;
}

async function pathsFor(dir: string | undefined, context: CliContext): Promise<PlanPaths> {
  const { loop: resolved } = await loadCommandLoop(context, dir);
  return planPaths(resolved.dir);
}

function shown(paths: PlanPaths, context: CliContext): string {
  const rel = relative(context.cwd, paths.dir);
  return rel === '' ? './' : rel.startsWith('..') ? paths.dir : `${rel}/`;
}
