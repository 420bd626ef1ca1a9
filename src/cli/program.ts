import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { createRequire } from 'node:module';
import type { CliContext, SetExitCode } from './context.js';
import { helpConfiguration, reflowHelpTexts } from './help-format.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

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
 * What `ralph --help` shows of each command: a group and one line (`ralph CMD --help` has the
 * whole description). Keeps the top-level help within a screen: 60 lines, 80 columns.
 */
const OVERVIEW: Record<string, { group: string; summary: string }> = {
  init: { group: 'Start a loop:', summary: 'create a loop directory with example files' },
  run: { group: 'Start a loop:', summary: 'run the loop until every story passes' },
  validate: { group: 'Start a loop:', summary: 'check everything a run needs' },
  status: { group: 'Watch and look back:', summary: 'where a loop stands: stories, cost, waits' },
  evidence: { group: 'Watch and look back:', summary: 'how ralph verified each story' },
  setup: { group: 'Claude Code integration:', summary: 'install the guard or the loop hook' },
  loop: { group: 'Claude Code integration:', summary: 'in-session loops via the Stop hook' },
  'stop-hook': { group: 'Claude Code integration:', summary: 'the Stop hook of `ralph loop`' },
  demo: { group: 'Start a loop:', summary: 'a whole loop on a sample project, no account' },
  inspect: { group: 'Watch and look back:', summary: "summarise one iteration's log" },
  list: { group: 'Watch and look back:', summary: 'the loops of this repository and their state' },
  attach: { group: 'Watch and look back:', summary: 'follow a running loop live' },
  stop: { group: 'Watch and look back:', summary: 'stop a running loop gracefully' },
  logs: { group: 'Watch and look back:', summary: "the agent's iteration logs, readable" },
  monitor: { group: 'Watch and look back:', summary: 'live view in the terminal, or --web' },
  guard: { group: 'Claude Code integration:', summary: 'the PreToolUse hook of the guard' },
  verify: { group: 'Check the work:', summary: 'verify the feature against spec.md' },
  debug: { group: 'Check the work:', summary: 'debug a problem, scientific method' },
  sandbox: { group: 'Check the work:', summary: 'run a command in the OS sandbox' },
  import: { group: 'Plan and remember:', summary: 'turn a PRD written elsewhere into prd.json' },
  amend: { group: 'Plan and remember:', summary: 'add, correct or descope a story mid-way' },
  sync: { group: 'Plan and remember:', summary: 'regenerate prd.json from spec.md (or back)' },
  archive: { group: 'Plan and remember:', summary: "copy the loop's plan and history aside" },
  memory: { group: 'Plan and remember:', summary: 'learnings the prompt carries (memories.md)' },
  templates: { group: 'Plan and remember:', summary: 'skills, scripts and hooks to copy in' },
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
        'feature_list.json), one fresh agent process per story, until every story\n' +
        'passes.',
    )
    .version(version, '-V, --version', 'print the ralph version')
    .helpOption('-h, --help', 'show help for a command')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      '\nralph COMMAND --help has the details of each command.\n' +
        'Exit codes: 0 complete/valid, 1 stopped early (limit, breaker, error),\n' +
        '2 invalid input or config, 130 interrupted.\n' +
        'Loop directory: DIR as given, or .ralph/<git branch>/ in the repository.\n' +
        'Docs: README.md. RALPH_* variables override config files (see README).',
    );
  program.configureOutput({
    writeOut: (text) => context.stdout.write(text),
    writeErr: (text) => context.stderr.write(text),
  });
  program.exitOverride();
  program.configureHelp(helpConfiguration());

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
    const overview = OVERVIEW[command.name()];
    if (overview !== undefined) command.helpGroup(overview.group).summary(overview.summary);
    reflowHelpTexts(command);
    command.configureHelp(helpConfiguration());
    for (const sub of command.commands) sub.configureHelp(helpConfiguration());
  }
  program.commandsGroup('Help:').helpCommand('help [command]', 'show help for a command');
  return program;
}
