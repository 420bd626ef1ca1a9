import { Command } from '@commander-js/extra-typings';
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import {
  chooseStopHookCommand,
  isRalphStopHook,
  type StopHookCommand,
} from '../../session-loop/hook-command.js';
import { sessionLoopPaths } from '../../session-loop/paths.js';
import { installPlugin, PLUGIN_NAME } from '../../session-loop/plugin-installer.js';
import { projectDirOf } from '../../session-loop/project.js';
import {
  installStopHookSettings,
  stopHookCommandsIn,
} from '../../session-loop/settings-installer.js';
import { installGuardSettings } from '../../guard/setup-settings.js';
import { RalphError } from '../../util/errors.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { setupCommands } from './setup-commands.js';
import { reportError } from '../exit.js';

/** `ralph setup --guard | --stop-hook | --plugin`: connects Claude Code sessions to ralph. Idempotent. */
export function setupCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('setup')
    .description(
      "Connect your own Claude Code sessions to ralph. --guard puts ralph's guard (the " +
        'PreToolUse hook `ralph guard`) and an allow/deny list into .claude/settings.local.json ' +
        'and prints every entry it adds. For `ralph loop`: --stop-hook adds the Stop hook to ' +
        '.claude/settings.local.json, keeping everything else there; --plugin writes a Claude Code ' +
        'plugin (slash commands /ralph-loop, /start-loop, /list, /cancel-ralph, /help and the hook). ' +
        '--commands (also what a plain `ralph setup` does) installs the planning slash commands ' +
        '/ralph-plan, /ralph-amend and /ralph-prd into .claude/commands/ (~/.claude/commands/ with ' +
        '--user); a command file you changed is kept unless --force. ' +
        'Running it again changes nothing. The hook command is `ralph stop-hook` when this ralph is ' +
        'on PATH, else the absolute `node …/dist/cli/bin.cjs stop-hook` of this installation.',
    )
    .option('--stop-hook', 'add the Stop hook to .claude/settings.local.json')
    .option('--plugin', 'write the Claude Code plugin (default folder .claude/ralph-plugin)')
    .option(
      '--guard',
      "add ralph's guard (the PreToolUse hook `ralph guard`) and the plan's allow/deny lists to .claude/settings.local.json",
    )
    .option('--commands', 'install the /ralph-plan, /ralph-amend and /ralph-prd slash commands')
    .option('--user', 'with --commands: into ~/.claude/commands/ instead of the project')
    .option('--force', 'with --commands: replace command files you changed')
    .option('--dir <dir>', 'where --plugin writes the plugin')
    .option(
      '--hook-command <command>',
      'the command that runs ralph in hooks, instead of the detected one',
    )
    .action(async (options) => {
      try {
        const plain =
          options.guard !== true &&
          options.stopHook !== true &&
          options.plugin !== true &&
          options.commands !== true;
        if (options.commands === true || plain) {
          const hook = await hookCommand(options.hookCommand, context);
          const dir =
            options.user === true
              ? userCommandsDir(context)
              : join(await projectDirOf(context.cwd), '.claude', 'commands');
          await setupCommands(dir, hook.prefix, context, { force: options.force === true });
          if (plain) {
            // The rest is a choice only the person can make: name every one.
            writeLine(
              context.stdout,
              "Also available: --guard (ralph's guard in front of your own Claude Code sessions' " +
                'tool calls), --stop-hook or --plugin (connect `ralph loop`).',
            );
          }
          if (options.guard !== true && options.stopHook !== true && options.plugin !== true) {
            return;
          }
        }
        if (options.guard === true) {
          const hook = await hookCommand(options.hookCommand, context);
          await setupGuard(await projectDirOf(context.cwd), hook, context);
          if (options.stopHook !== true && options.plugin !== true) return;
        }
        if (options.stopHook === true && options.plugin === true) {
          throw new RalphError('USAGE', 'choose one of --stop-hook or --plugin', {
            hint: 'Both would register the hook twice and count every iteration twice.',
          });
        }
        if (options.stopHook !== true && options.plugin !== true) {
          throw new RalphError('USAGE', 'say what to install: --guard, --stop-hook or --plugin', {
            hint:
              "`ralph setup --guard` puts ralph's guard in front of the tool calls of your own " +
              'Claude Code sessions; --stop-hook or --plugin connect `ralph loop` (one of the two). ' +
              '`ralph run` needs none of them.',
          });
        }
        const projectDir = await projectDirOf(context.cwd);
        const hook = await hookCommand(options.hookCommand, context);
        for (const warning of hook.warnings)
          writeLine(context.stderr, `ralph: warning: ${warning}`);
        if (options.stopHook === true) await setupStopHook(projectDir, hook, context);
        else await setupPlugin(projectDir, options.dir, hook, context);
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

/** Claude Code reads user commands from $CLAUDE_CONFIG_DIR/commands, else ~/.claude/commands. */
function userCommandsDir(context: CliContext): string {
  const config = context.env.CLAUDE_CONFIG_DIR;
  return config !== undefined && config !== ''
    ? join(config, 'commands')
    : join(homeDirOf(context), '.claude', 'commands');
}

async function setupGuard(projectDir: string, hook: StopHookCommand, context: CliContext) {
  const { settingsLocal } = sessionLoopPaths(projectDir);
  const command = `${hook.prefix} guard`;
  const { action, allowAdded, denyAdded } = await installGuardSettings(settingsLocal, command);
  const shown = relative(context.cwd, settingsLocal) || settingsLocal;
  const verb = {
    added: 'Added the guard to',
    updated: 'Updated the guard in',
    unchanged: 'The guard is already in',
  }[action];
  writeLine(context.stdout, `${verb} ${shown}:`);
  writeLine(
    context.stdout,
    '  PreToolUse hook on Bash, Read, Edit, Write, MultiEdit, NotebookEdit, Glob, Grep:',
  );
  writeLine(context.stdout, `    ${command}`);
  // An allow entry approves a call without asking: the person sees every one that was written.
  if (allowAdded.length > 0) {
    writeLine(
      context.stdout,
      'Added to permissions.allow (run without a prompt, guard permitting):',
    );
    writeLine(context.stdout, wrapList(allowAdded));
  }
  if (denyAdded.length > 0) {
    writeLine(context.stdout, 'Added to permissions.deny:');
    writeLine(context.stdout, wrapList(denyAdded));
  }
  writeLine(
    context.stdout,
    'Decisions go to .ralph/logs/audit.jsonl; the policy is the `guard` section of\n' +
      '.ralph/config.yaml. Remove an allow entry to be asked before such a call.',
  );
}

/** A list of entries as indented lines of at most 80 columns. */
function wrapList(entries: readonly string[]): string {
  const lines: string[] = [];
  let line = ' ';
  for (const entry of entries) {
    if (line.length + entry.length + 2 > 80) {
      lines.push(line.trimEnd());
      line = ' ';
    }
    line += ` ${entry},`;
  }
  lines.push(line.replace(/,$/, ''));
  return lines.join('\n');
}

async function hookCommand(
  custom: string | undefined,
  context: CliContext,
): Promise<StopHookCommand> {
  if (custom !== undefined) {
    const prefix = custom.replace(/\s+stop-hook\s*$/, '').trim();
    if (prefix === '') throw new RalphError('USAGE', '--hook-command is empty');
    return { prefix, form: 'custom', warnings: [] };
  }
  return chooseStopHookCommand({ env: context.env, execPath: process.execPath });
}

async function setupStopHook(
  projectDir: string,
  hook: StopHookCommand,
  context: CliContext,
): Promise<void> {
  const { settingsLocal, claudeDir } = sessionLoopPaths(projectDir);
  const command = `${hook.prefix} stop-hook`;
  const { action } = await installStopHookSettings(settingsLocal, command);
  const shown = relative(context.cwd, settingsLocal) || settingsLocal;
  const verb = {
    added: 'Added the Stop hook to',
    updated: 'Updated the Stop hook in',
    unchanged: 'The Stop hook is already in',
  }[action];
  writeLine(context.stdout, `${verb} ${shown}:`);
  writeLine(context.stdout, `  ${command}`);
  await warnIfRegisteredElsewhere(claudeDir, settingsLocal, context);
  writeLine(
    context.stdout,
    'Start a loop with `ralph loop start "PROMPT" --completion-promise DONE --max-iterations 20`.',
  );
}

async function setupPlugin(
  projectDir: string,
  dir: string | undefined,
  hook: StopHookCommand,
  context: CliContext,
): Promise<void> {
  const target =
    dir === undefined
      ? resolve(sessionLoopPaths(projectDir).claudeDir, 'ralph-plugin')
      : resolve(context.cwd, dir);
  const results = await installPlugin(target, hook.prefix);
  await warnIfRegisteredElsewhere(
    sessionLoopPaths(projectDir).claudeDir,
    resolve(target, 'hooks', 'hooks.json'),
    context,
  );
  const shown = relative(context.cwd, target) || '.';
  const changed = results.filter((result) => result.action !== 'unchanged');
  writeLine(
    context.stdout,
    changed.length === 0
      ? `The ${PLUGIN_NAME} plugin in ${shown}/ is up to date.`
      : `Wrote the ${PLUGIN_NAME} plugin to ${shown}/:`,
  );
  for (const result of changed)
    writeLine(context.stdout, `  ${result.action.padEnd(8)} ${relative(target, result.path)}`);
  writeLine(
    context.stdout,
    'Load it with `claude --plugin-dir ' + shown + '`, or install it once:',
  );
  writeLine(context.stdout, `  /plugin marketplace add ${target}`);
  writeLine(context.stdout, `  /plugin install ${PLUGIN_NAME}@ralph-local`);
  writeLine(
    context.stdout,
    'Then /ralph-loop, /start-loop, /list, /cancel-ralph and /help are available.',
  );
}

/**
 * Two registrations run the hook twice per stop, and each run counts an iteration: say so.
 * (The plugin folder is only known when it is the default one.)
 */
async function warnIfRegisteredElsewhere(
  claudeDir: string,
  installed: string,
  context: CliContext,
): Promise<void> {
  const candidates = ['settings.json', 'settings.local.json', 'ralph-plugin/hooks/hooks.json'];
  for (const name of candidates) {
    const path = resolve(claudeDir, name);
    if (path === installed) continue;
    const text = await readFile(path, 'utf8').catch(() => '');
    const commands = stopHookCommandsIn(text);
    if (commands.some(isRalphStopHook)) {
      writeLine(
        context.stderr,
        `ralph: warning: ${relative(context.cwd, path) || path} registers the ralph Stop hook too: keep one, or every iteration counts twice`,
      );
    }
  }
}
