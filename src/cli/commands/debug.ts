import { Command, Option } from '@commander-js/extra-typings';
import { stat } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { debugProblem, type DebugResult } from '../../run/debug.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { ExitCode, reportError } from '../exit.js';
import { choicesOf } from '../setting-option.js';
import { verboseEvents, withSessionSignals } from './session-terminal.js';

export function debugCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('debug')
    .description(
      'Debug a problem with the scientific method in one agent session: gather symptoms, form\n' +
        'ranked hypotheses, test one variable at a time, record evidence. The investigation lives\n' +
        'in DIR/debug-state.md (symptoms, hypotheses, evidence, checkpoints), so --continue goes on\n' +
        'in a fresh session. Exit 0 ROOT_CAUSE_FOUND or DEBUG_COMPLETE, 10 CHECKPOINT_REACHED\n' +
        '(continue later), 1 error (no state recorded), 2 invalid input, 130 interrupted.',
    )
    .argument(
      '[dir]',
      'loop directory (default: .ralph/<git branch>/); one argument that is no directory is PROBLEM',
    )
    .argument('[problem]', 'what is wrong (required unless --continue)')
    .addOption(
      new Option(
        '--profile <profile>',
        'model profile: quality (opus), balanced (sonnet), budget (haiku)',
      ).choices(choicesOf('profile')),
    )
    .option('-m, --model <model>', 'model for the session (opus, sonnet, haiku or a full name)')
    .addOption(
      new Option(
        '--continue',
        'go on from DIR/debug-state.md (PROBLEM, if given, is new information)',
      ).conflicts('reset'),
    )
    .option('--reset', 'discard DIR/debug-state.md and start over with PROBLEM')
    .option('-v, --verbose', "show the agent's tool calls and messages as they happen")
    .action(async (first, second, options) => {
      try {
        // Two arguments are DIR and the problem; one is DIR when it names a directory
        // (`ralph debug .ralph/x --continue`), else the problem (`ralph debug "tests fail"`).
        const oneIsDir =
          first !== undefined &&
          second === undefined &&
          (await isDirectory(resolve(context.cwd, first)));
        const [dir, problem] =
          second !== undefined || oneIsDir ? [first, second] : [undefined, first];
        const result = await withSessionSignals((signal, processGroups) =>
          debugProblem({
            dir,
            problem,
            continue: options.continue,
            reset: options.reset,
            cwd: context.cwd,
            env: context.env,
            homeDir: homeDirOf(context),
            model: options.model,
            profile: options.profile,
            signal,
            processGroups,
            ...(options.verbose === true ? { onEvent: verboseEvents(context) } : {}),
          }),
        );
        printResult(context, result);
        setExitCode(result.interrupted ? ExitCode.interrupted : result.exitCode);
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

function printResult(context: CliContext, result: DebugResult): void {
  const out = context.stdout;
  const shown = relative(context.cwd, result.stateFile);
  writeLine(
    out,
    `Debug session ${result.session}: ${result.state}${result.status === undefined ? '' : ` — ${result.status.summary}`}`,
  );
  if (result.status?.rootCause !== undefined)
    writeLine(out, `  root cause: ${result.status.rootCause}`);
  if (result.problem !== undefined) writeLine(context.stderr, `ralph: ${result.problem}`);
  if (result.state === 'CHECKPOINT_REACHED') {
    writeLine(out, '  progress saved; go on with: ralph debug --continue');
  }
  if (result.state === 'ROOT_CAUSE_FOUND') {
    writeLine(out, '  next: fix it now, plan a fix (add a story), or handle it by hand');
  }
  writeLine(out, `State: ${shown.startsWith('..') ? result.stateFile : shown}`);
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}
