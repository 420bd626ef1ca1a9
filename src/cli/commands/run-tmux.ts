import { basename } from 'node:path';
import { runInteractive, runToCompletion, type CapturedResult } from '../../agents/spawn.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext } from '../context.js';
import { BIN } from './run-background.js';
import { shownPath } from './watch-target.js';

/** tmux answers at once; a limit only keeps a wedged server from hanging `ralph run`. */
const TMUX_TIMEOUT_MS = 30_000;

type Env = Readonly<Record<string, string | undefined>>;

/** Runs one tmux command and throws, with tmux's own words, when it fails. */
async function tmuxOrThrow(tmux: string, args: string[], env: Env, cwd: string): Promise<void> {
  const result = await runToCompletion(tmux, args, { env, cwd, timeoutMs: TMUX_TIMEOUT_MS });
  if (!result.failed) return;
  throw new RalphError('IO', `tmux ${args[0] ?? ''} failed: ${whyFailed(result)}`);
}

function whyFailed(result: CapturedResult): string {
  const said = result.stderr.trim();
  if (said !== '') return said;
  if (result.originalMessage !== undefined) return result.originalMessage;
  if (result.timedOut) return `no answer within ${TMUX_TIMEOUT_MS / 1000} s`;
  return result.signal ?? `exit code ${String(result.exitCode)}`;
}

/** Variables that describe the terminal ralph was started in, not the one tmux gives a pane. */
const TERMINAL_VARS = new Set([
  'TMUX',
  'TMUX_PANE',
  'TERM',
  'COLUMNS',
  'LINES',
  'SHLVL',
  'PWD',
  'OLDPWD',
  '_',
]);

/**
 * `ralph run --monitor`: a tmux session with the loop in the left pane and `ralph monitor` in
 * the right one, then attaches to it (or, without a terminal or with --detach, says how to).
 * Returns false when tmux is not installed, after a warning, so the caller runs plainly.
 */
export async function runInTmux(
  context: CliContext,
  loopDir: string,
  args: readonly string[],
  options: { attach: boolean },
): Promise<boolean> {
  const tmux = context.env.RALPH_TMUX_BIN ?? 'tmux';
  const env = { ...context.env };
  const version = await runToCompletion(tmux, ['-V'], { env, timeoutMs: TMUX_TIMEOUT_MS });
  if (version.failed) {
    writeLine(
      context.stderr,
      'ralph: warning: --monitor needs tmux, which is not installed: running without the monitor (watch from another terminal with `ralph monitor`)',
    );
    return false;
  }
  const session = await freeSessionName(tmux, env, `ralph-${basename(loopDir)}`);
  // A tmux server that is already running gives new panes its own environment, not ours:
  // pass ours explicitly so the loop sees the same PATH, RALPH_* and agent settings.
  const envArgs = Object.entries(context.env)
    .filter(([key, value]) => value !== undefined && !TERMINAL_VARS.has(key))
    .flatMap(([key, value]) => ['-e', `${key}=${value ?? ''}`]);
  const node = process.execPath;
  const loopCommand = shellCommand([node, BIN, 'run', ...args]);
  const monitorCommand = shellCommand([node, BIN, 'monitor', loopDir]);
  const tmuxRun = (...tmuxArgs: string[]) => tmuxOrThrow(tmux, tmuxArgs, env, context.cwd);
  await tmuxRun(
    'new-session',
    '-d',
    '-s',
    session,
    '-x',
    '200',
    '-y',
    '50',
    '-c',
    context.cwd,
    ...envArgs,
    loopCommand,
  );
  // Keep the loop's pane after it ends, so its last lines (and the result) stay readable.
  await tmuxRun('set-option', '-t', session, 'remain-on-exit', 'on');
  await tmuxRun(
    'split-window',
    '-h',
    '-t',
    `${session}:0`,
    '-c',
    context.cwd,
    ...envArgs,
    monitorCommand,
  );
  await tmuxRun('select-pane', '-t', `${session}:0.0`);
  const name = shownPath(context.cwd, loopDir);
  const stdoutIsTty = (context.stdout as { isTTY?: boolean }).isTTY === true;
  if (!options.attach || !stdoutIsTty) {
    writeLine(
      context.stdout,
      `ralph: the loop runs in tmux session ${session} (loop left, monitor right)`,
    );
    writeLine(context.stdout, `  see it:   tmux attach -t ${session}    (Ctrl+B D detaches again)`);
    writeLine(context.stdout, `  stop it:  ralph stop ${name}`);
    return true;
  }
  const inside = context.env.TMUX !== undefined && context.env.TMUX !== '';
  if (!inside) {
    await runInteractive(tmux, ['attach-session', '-t', session], { env });
    return true;
  }
  // Inside tmux, the client showing this pane switches to the new session. A pane no client
  // shows (a detached session, a script's server) has none, and tmux only says "no current
  // client": the loop runs all the same, so say where it is and how to see it.
  const switched = await runToCompletion(tmux, ['switch-client', '-t', session], {
    env,
    timeoutMs: TMUX_TIMEOUT_MS,
  });
  if (switched.failed) {
    writeLine(
      context.stderr,
      `ralph: the loop runs in tmux session ${session}, but no tmux client shows this pane to switch (tmux: ${whyFailed(switched)})`,
    );
    writeLine(context.stderr, `  see it:   tmux attach -t ${session}    (from any terminal)`);
    writeLine(context.stderr, `  stop it:  ralph stop ${name}`);
  }
  return true;
}

async function freeSessionName(tmux: string, env: Env, wanted: string): Promise<string> {
  // tmux reserves '.' and ':' in target names.
  const base = wanted.replace(/[.:\s]/g, '-');
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    const taken = await runToCompletion(tmux, ['has-session', '-t', `=${name}`], {
      env,
      timeoutMs: TMUX_TIMEOUT_MS,
    });
    if (taken.failed) return name;
  }
}

/** Words quoted for sh, which tmux runs the pane command with. */
export function shellCommand(words: readonly string[]): string {
  return words
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
