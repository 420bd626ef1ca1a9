import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { watch } from 'node:fs';
import { constants } from 'node:os';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startDetached } from '../../agents/spawn.js';
import { readLock } from '../../state/lock.js';
import { loopPaths } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { openForAppend, ownFolder } from '../../util/no-follow.js';
import { writeLine, type CliContext } from '../context.js';
import { ExitCode } from '../exit.js';
import { writeJson } from '../output.js';
import { shownPath } from './watch-target.js';

/** The built CLI entry point: a background run is this same ralph, started again. */
export const BIN = fileURLToPath(new URL('../bin.cjs', import.meta.url));
const STARTUP_TIMEOUT_MS = 15_000;

/**
 * The `ralph run` argv for a run that someone else (a background process, a tmux pane)
 * starts: every option given on the command line, read back from commander (so options added
 * to `run` later carry over unchanged), the loop directory as resolved, minus --detach and
 * --monitor, plus --skip-preflight since preflight has just passed here.
 */
export function childRunArgs(command: CommandUnknownOpts, loopDir: string): string[] {
  const args = [loopDir];
  for (const option of command.options) {
    const key = option.attributeName();
    if (option.long === undefined || key === 'detach' || key === 'monitor') continue;
    if (command.getOptionValueSource(key) !== 'cli') continue;
    const value: unknown = command.getOptionValue(key);
    if (typeof value === 'boolean') {
      // A negatable flag given on the command line (--no-archive) stores false.
      if (value === !option.negate) args.push(option.long);
    } else if (Array.isArray(value)) {
      for (const each of value) args.push(option.long, word(each));
    } else if (value !== undefined) {
      args.push(option.long, word(value));
    }
  }
  if (!args.includes('--skip-preflight')) args.push('--skip-preflight');
  return args;
}

/** An option value as it was typed: commander has parsed numbers, which print back the same. */
function word(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * `ralph run --detach`: starts the run in its own session (setsid, so closing this terminal
 * or Ctrl+C here does not reach it), output appended to logs/run.log, and returns once the
 * run holds the loop directory's lock — so the pid printed is the one `ralph stop` signals —
 * or, if it dies first, with the end of its output.
 */
export async function detachRun(
  context: CliContext,
  loopDir: string,
  args: readonly string[],
  json: boolean,
): Promise<number> {
  const paths = loopPaths(loopDir);
  const holder = await readLock(loopDir);
  if (holder?.alive === true) {
    throw new RalphError(
      'LOCKED',
      `${loopDir} is in use by pid ${holder.holder?.pid ?? '?'} (${holder.holder?.command ?? 'ralph run'})`,
      { hint: '`ralph attach` follows it; `ralph stop` stops it.' },
    );
  }
  // Neither the logs folder nor run.log is followed if the agent left a link there.
  await ownFolder(paths.logsDir);
  const log = await openForAppend(paths.runLog);
  let pid: number;
  let exited: Promise<number>;
  try {
    await log.write(
      `\n=== ralph run ${args.join(' ')} (background, ${new Date().toISOString()}) ===\n`,
    );
    const child = startDetached(process.execPath, [BIN, 'run', ...args], {
      cwd: context.cwd,
      env: context.env,
      outputFd: log.fd,
    });
    if (child.pid === undefined) {
      const why = (await child.result).originalMessage ?? 'unknown error';
      throw new RalphError('IO', `could not start the background run: ${why}`);
    }
    pid = child.pid;
    // An exit code, or 128 + n for a signal the way shells report it (1 when unknown).
    exited = child.result.then((result) => result.exitCode ?? signalExitCode(result.signal));
  } finally {
    await log.close(); // the child has its own copy of the descriptor
  }

  const waiting = new AbortController();
  const outcome = await Promise.race([
    holdsLock(loopDir, pid, waiting.signal).then(() => 'running' as const),
    exited.then((code) => ({ code })),
    new Promise<'slow'>((resolve) => {
      setTimeout(() => {
        resolve('slow');
      }, STARTUP_TIMEOUT_MS).unref();
    }),
  ]);
  waiting.abort();
  const name = shownPath(context.cwd, loopDir);
  const runLog = shownPath(context.cwd, paths.runLog);
  if (typeof outcome === 'object') {
    const tail = (await readFile(paths.runLog, 'utf8').catch(() => ''))
      .trimEnd()
      .split('\n')
      .slice(-15);
    writeLine(
      context.stderr,
      `ralph: the background run ended at once (exit ${outcome.code}); ${runLog}:`,
    );
    for (const line of tail) writeLine(context.stderr, `  ${line}`);
    return outcome.code === 0 ? ExitCode.ok : outcome.code;
  }
  if (json) {
    writeJson(context, {
      pid,
      loopDir,
      runLog: paths.runLog,
      state: outcome === 'running' ? 'RUNNING' : 'STARTING',
    });
    return ExitCode.ok;
  }
  const out = context.stdout;
  writeLine(out, `ralph: running in the background (pid ${pid}): ${name}`);
  writeLine(out, `  follow it:   ralph attach ${name}`);
  writeLine(out, `  watch it:    ralph monitor ${name}    (or: ralph monitor --web)`);
  writeLine(out, `  its output:  ${runLog}    (ralph logs -f ${name}: the agent's)`);
  writeLine(out, `  stop it:     ralph stop ${name}    (state PAUSED; ralph run resumes)`);
  if (outcome === 'slow')
    writeLine(context.stderr, `ralph: it has not taken the lock yet; see ${runLog}`);
  return ExitCode.ok;
}

function signalExitCode(signal: NodeJS.Signals | undefined): number {
  const number = signal === undefined ? undefined : constants.signals[signal];
  return number === undefined ? 1 : 128 + number;
}

/** Resolves once `pid` holds the loop directory's lock (the folder is watched: no polling). */
async function holdsLock(loopDir: string, pid: number, signal: AbortSignal): Promise<void> {
  const held = async (): Promise<boolean> =>
    (await readLock(loopDir).catch(() => undefined))?.holder?.pid === pid;
  await new Promise<void>((resolve) => {
    const check = (): void => {
      void held().then((yes) => {
        if (yes) resolve();
      });
    };
    const watcher = watch(loopPaths(loopDir).dir, { signal }, check);
    watcher.on('error', () => undefined);
    check(); // the lock may already be there
  });
}
