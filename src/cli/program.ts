import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { createRequire } from 'node:module';
import type { CliContext, SetExitCode } from './context.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const HELP_WIDTH = 100;

type CommandFactory = (context: CliContext, setExitCode: SetExitCode) => CommandUnknownOpts;

/**
 * Every command, in the order `ralph --help` lists them, each behind its own import(): a command
 * line loads only the command it names (design.md §6: `ralph status` must not parse the run engine,
 * the guard and the monitor first). Help, a typo or no command at all load them all.
 */
const COMMANDS: Record<string, () => Promise<CommandFactory>> = {
  init: async () => (await import('./commands/init.js')).initCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  validate: async () => (await import('./commands/validate.js')).validateCommand,
  amend: async () => (await import('./commands/amend.js')).amendCommand,
  sync: async () => (await import('./commands/sync.js')).syncCommand,
  import: async () => (await import('./commands/import.js')).importCommand,
  archive: async () => (await import('./commands/archive.js')).archiveCommand,
  status: async () => (await import('./commands/status.js')).statusCommand,
  evidence: async () => (await import('./commands/evidence.js')).evidenceCommand,
  memory: async () => (await import('./commands/memory.js')).memoryCommand,
  templates: async () => (await import('./commands/templates.js')).templatesCommand,
  setup: async () => (await import('./commands/setup.js')).setupCommand,
  loop: async () => (await import('./commands/loop.js')).loopCommand,
  'stop-hook': async () => (await import('./commands/stop-hook-command.js')).stopHookCommand,
  demo: async () => (await import('./commands/demo.js')).demoCommand,
  inspect: async () => (await import('./commands/inspect.js')).inspectCommand,
  list: async () => (await import('./commands/list.js')).listCommand,
  attach: async () => (await import('./commands/attach.js')).attachCommand,
  stop: async () => (await import('./commands/stop.js')).stopCommand,
  logs: async () => (await import('./commands/logs.js')).logsCommand,
  monitor: async () => (await import('./commands/monitor.js')).monitorCommand,
  guard: async () => (await import('./commands/guard-command.js')).guardCommand,
  verify: async () => (await import('./commands/verify.js')).verifyCommand,
  debug: async () => (await import('./commands/debug.js')).debugCommand,
  sandbox: async () => (await import('./commands/sandbox.js')).sandboxCommand,
};

/**
 * The commands a command line needs: the one it names, none for `--version`, else (help, a typo,
 * no command) all of them.
 */
async function loadCommands(argv: readonly string[]): Promise<CommandFactory[]> {
  const first = argv[0];
  if (first === '-V' || first === '--version') return [];
  const named = first !== undefined && Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  const loaders = named === undefined ? Object.values(COMMANDS) : [named];
  return Promise.all(loaders.map((load) => load()));
}

/** The program for one command line: only the commands `argv` can reach are loaded. */
export async function createProgram(
  context: CliContext,
  setExitCode: SetExitCode,
  argv: readonly string[],
): Promise<Command> {
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

  for (const factory of await loadCommands(argv)) {
    program.addCommand(factory(context, setExitCode));
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
