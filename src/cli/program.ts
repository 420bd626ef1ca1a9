import { Command } from '@commander-js/extra-typings';
import { createRequire } from 'node:module';
import { attachCommand } from './commands/attach.js';
import { demoCommand } from './commands/demo.js';
import { guardCommand } from './commands/guard-command.js';
import { initCommand } from './commands/init.js';
import { inspectCommand } from './commands/inspect.js';
import { listCommand } from './commands/list.js';
import { logsCommand } from './commands/logs.js';
import { loopCommand } from './commands/loop.js';
import { monitorCommand } from './commands/monitor.js';
import { setupCommand } from './commands/setup.js';
import { runCommand } from './commands/run.js';
import { statusCommand } from './commands/status.js';
import { stopCommand } from './commands/stop.js';
import { stopHookCommand } from './commands/stop-hook-command.js';
import { validateCommand } from './commands/validate.js';
import type { CliContext, SetExitCode } from './context.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const HELP_WIDTH = 100;

/** How a command reports its exit code back to main() without touching process globals. */

export function createProgram(context: CliContext, setExitCode: SetExitCode): Command {
  const program = new Command()
    .name('ralph')
    .description(
      'Run an AI coding agent (Claude Code) in a loop over a task list (prd.json or\n' +
        'feature_list.json), one fresh agent process per story, until every story passes.',
    )
    .version(version, '-V, --version', 'print the ralph version')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      '\nExit codes: 0 complete/valid, 1 stopped early (limit, breaker, error), 2 invalid input or config,\n' +
        '130 interrupted.\nLoop directory: DIR as given, or .ralph/<git branch>/ in the current repository.\n' +
        'Docs: README.md. Environment: RALPH_* variables override config files (see README).',
    );
  program.configureOutput({
    writeOut: (text) => context.stdout.write(text),
    writeErr: (text) => context.stderr.write(text),
  });
  program.exitOverride();
  // Descriptions are written as short paragraphs of lines up to ~100 columns; narrower wrapping
  // would break every line in two.
  program.configureHelp({ helpWidth: HELP_WIDTH });

  for (const command of [
    initCommand(context, setExitCode),
    runCommand(context, setExitCode),
    validateCommand(context, setExitCode),
    statusCommand(context, setExitCode),
    setupCommand(context, setExitCode),
    loopCommand(context, setExitCode),
    stopHookCommand(context, setExitCode),
    demoCommand(context, setExitCode),
    inspectCommand(context, setExitCode),
    listCommand(context, setExitCode),
    attachCommand(context, setExitCode),
    stopCommand(context, setExitCode),
    logsCommand(context, setExitCode),
    monitorCommand(context, setExitCode),
    guardCommand(context, setExitCode),
  ]) {
    program.addCommand(command);
  }
  // Subcommands inherit output and exit handling so `ralph init --bogus` behaves like `ralph --bogus`.
  for (const command of program.commands) {
    command.configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    });
    command.exitOverride();
    command.showSuggestionAfterError(true);
    command.configureHelp({ helpWidth: HELP_WIDTH });
    for (const sub of command.commands) sub.configureHelp({ helpWidth: HELP_WIDTH });
  }
  return program;
}
