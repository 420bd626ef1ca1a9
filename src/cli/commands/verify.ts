import { Command, Option } from '@commander-js/extra-typings';
import { relative } from 'node:path';
import { verifyFeature, type VerifyResult } from '../../run/verify.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { ExitCode, reportError } from '../exit.js';
import { choicesOf } from '../setting-option.js';
import { verboseEvents, withSessionSignals } from './session-terminal.js';

export function verifyCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('verify')
    .description(
      'Verify the feature goal-backward: one agent session extracts the goals from spec.md, checks\n' +
        'each is delivered, reachable and wired, looks for stubs and lists what a person must test;\n' +
        'ralph adds its own scan of the lines the branch added (TODO, not implemented, empty bodies).\n' +
        'The report goes to DIR/VERIFICATION.md. Exit 0 VERIFIED, 1 NEEDS_WORK, 2 BLOCKED (also when\n' +
        'the agent gave no valid verdict), 130 interrupted.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .addOption(
      new Option(
        '--profile <profile>',
        'model profile: quality (opus), balanced (sonnet), budget (haiku)',
      ).choices(choicesOf('profile')),
    )
    .option('-m, --model <model>', 'model for the session (opus, sonnet, haiku or a full name)')
    .option('-o, --output <file>', 'where the report goes (default: DIR/VERIFICATION.md)')
    .option('-v, --verbose', "show the agent's tool calls and messages as they happen")
    .action(async (dir, options) => {
      try {
        const result = await withSessionSignals((signal, processGroups) =>
          verifyFeature({
            dir,
            cwd: context.cwd,
            env: context.env,
            homeDir: homeDirOf(context),
            model: options.model,
            profile: options.profile,
            output: options.output,
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

function printResult(context: CliContext, result: VerifyResult): void {
  const out = context.stdout;
  const shown = relative(context.cwd, result.reportFile);
  const summary = result.agentVerdict?.summary;
  writeLine(out, `Verification: ${result.status}${summary === undefined ? '' : ` — ${summary}`}`);
  const { goals, humanTesting } = result.agentVerdict ?? {};
  if (goals !== undefined) writeLine(out, `  goals achieved: ${goals.achieved}/${goals.total}`);
  const { findings, files } = result.scan;
  writeLine(
    out,
    `  ralph's stub scan: ${findings.length} finding${findings.length === 1 ? '' : 's'} in ${files.length} changed file${files.length === 1 ? '' : 's'}`,
  );
  for (const each of findings.slice(0, 10))
    writeLine(out, `    ${each.file}:${each.line} ${each.kind}: ${each.text}`);
  if (findings.length > 10) writeLine(out, `    … ${findings.length - 10} more in the report`);
  if (humanTesting !== undefined && humanTesting.length > 0) {
    writeLine(out, '  for a person to test:');
    for (const item of humanTesting) writeLine(out, `    - ${item}`);
  }
  for (const reason of result.reasons) writeLine(context.stderr, `ralph: ${reason}`);
  if (result.interrupted) writeLine(context.stderr, 'ralph: verification interrupted');
  writeLine(out, `Report: ${shown.startsWith('..') ? result.reportFile : shown}`);
}
