import { Command } from '@commander-js/extra-typings';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { runInteractive } from '../../agents/spawn.js';
import { runSandboxFor } from '../../run/sandbox.js';
import { loadConfig } from '../../state/config.js';
import { findGitRepo } from '../../state/git.js';
import { resolveLoopDir } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { homeDirOf, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';

/**
 * `ralph sandbox [DIR] -- COMMAND [ARGS…]`: COMMAND, from the current folder, inside the sandbox
 * the agent gets in `ralph run DIR` (whatever sandbox.enabled says), with its exit code — to check
 * that a build works inside, or to replay an attack.
 */
export function sandboxCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('sandbox')
    .description(
      'Run COMMAND from the current folder inside the OS sandbox the agent gets in `ralph run DIR`\n' +
        '(bubblewrap), and exit with its exit code: check that builds and tests work inside.',
    )
    .usage('[dir] -- command [args...]')
    .argument('[words...]', 'the loop directory (optional), then -- and the command')
    .action(async (words, _options, command) => {
      try {
        const { dir, argv } = splitWords(words, rawArgsOf(command.parent));
        setExitCode(await runSandboxed(context, dir, argv));
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

/**
 * The command line as given: commander drops the `--` from the operands, and only its place tells
 * `ralph sandbox DIR -- cmd` from `ralph sandbox -- cmd arg`. `rawArgs` is commander's own public
 * field, missing from its typings.
 */
function rawArgsOf(program: unknown): readonly string[] {
  const raw = (program as { rawArgs?: unknown } | null)?.rawArgs;
  return Array.isArray(raw) ? raw.filter((each): each is string => typeof each === 'string') : [];
}

/** The words before `--` (at most a DIR) and the command after it. */
function splitWords(
  words: string[],
  rawArgs: readonly string[],
): { dir: string | undefined; argv: string[] } {
  const at = rawArgs.indexOf('--');
  const argv = at < 0 ? [] : rawArgs.slice(at + 1);
  const before = words.slice(0, words.length - argv.length);
  if (argv.length === 0 || before.length > 1) {
    throw new RalphError('USAGE', 'ralph sandbox needs a command after --', {
      hint: 'ralph sandbox [DIR] -- COMMAND [ARGS...], e.g. ralph sandbox -- npm test',
    });
  }
  return { dir: before[0], argv };
}

async function runSandboxed(
  context: CliContext,
  dir: string | undefined,
  argv: string[],
): Promise<number> {
  const { cwd, env } = context;
  const homeDir = homeDirOf(context);
  const repo = await findGitRepo(cwd).catch(() => undefined);
  const { config } = await loadConfig({ homeDir, env, repoRoot: repo?.root });
  const resolved = await resolveLoopDir({
    dir,
    cwd,
    protectedBranches: config.protectedBranches,
  }).catch(() => undefined);
  // A loop folder that does not exist yet has no control files to protect.
  const loopDir =
    resolved !== undefined && (await stat(resolved.dir).catch(() => undefined))?.isDirectory()
      ? resolved.dir
      : undefined;
  const found = await runSandboxFor({
    cwd,
    homeDir,
    loopDir,
    env,
    settings: { ...config.sandbox, enabled: true },
    guard: config.guard,
  });
  if (found.kind !== 'on') {
    const reason = found.kind === 'missing' ? found.reason : 'no OS sandbox on this system';
    throw new RalphError('PREFLIGHT_FAILED', `cannot sandbox: ${reason}`, {
      hint: 'apt-get install bubblewrap (Linux only)',
    });
  }
  const [file = '', ...args] = argv;
  const wrapped = found.sandbox.wrap(file, args, { newSession: true });
  try {
    const result = await runInteractive(wrapped.file, wrapped.args, { cwd, env });
    if (result.exitCode !== undefined) return result.exitCode;
    const signal = result.signal === undefined ? undefined : constants.signals[result.signal];
    return signal === undefined ? 1 : 128 + signal;
  } finally {
    found.sandbox.dispose();
  }
}
