import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { pumpLines } from './line-splitter.js';
import { feedStdin } from './stdin-input.js';
import { bindToParentLife } from './parent-death.js';
import { signalGroup } from './process-groups.js';
import { captureOutput, ended, notStarted, stopwatch } from './process-result.js';
import type { CapturedResult, ProcessResult } from './process-result.js';
import type {
  DetachedOptions,
  DetachedProcess,
  RunToCompletionOptions,
  StreamingOptions,
} from './spawn-options.js';

export type { CapturedResult, ProcessResult } from './process-result.js';
export type {
  CommandWrapper,
  DetachedOptions,
  DetachedProcess,
  RunToCompletionOptions,
  StreamingOptions,
} from './spawn-options.js';

/**
 * The only module that starts processes (design.md §1; a lint rule keeps node:child_process out
 * of every other file of src/). Short commands run to completion with their output collected
 * (`runToCompletion`), long-running agents and hooks stream their output line by line
 * (`spawnStreaming`), a background run starts detached (`startDetached`) and a terminal program
 * takes over the terminal (`runInteractive`). All of them resolve with one ProcessResult shape
 * (process-result.ts: execa's field names) and never reject for the child's failures.
 */

/**
 * Runs a short command (git, `claude --version`, tmux, a desktop notifier) with stdin from
 * /dev/null and resolves once it has exited and closed its output. It runs in a process group of
 * its own: a timeout or abort kills the group, and so does its own exit (what it left in the
 * background goes with it). Output a process outside the group still holds (setsid) is waited for
 * a moment after the command exits, then abandoned: a short command never hangs its caller.
 */
export function runToCompletion(
  file: string,
  args: readonly string[],
  options: RunToCompletionOptions,
): Promise<CapturedResult> {
  const elapsed = stopwatch();
  const empty = { stdout: '', stderr: '', isMaxBuffer: false };
  if (options.signal?.aborted === true) {
    return Promise.resolve({ ...ended(undefined, undefined, { isCanceled: true }), ...empty });
  }
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      detached: true,
    });
  } catch (error) {
    return Promise.resolve({ ...notStarted(error, elapsed()), ...empty });
  }
  const { pid } = child;
  const maxBuffer = options.maxBuffer ?? 1024 * 1024;
  const flags = { timedOut: false, isCanceled: false };
  let isMaxBuffer = false;
  const killGroup = (): void => {
    if (pid === undefined || !signalGroup(pid, 'SIGKILL')) child.kill('SIGKILL');
  };
  const kill = (why?: 'timedOut' | 'isCanceled') => {
    if (why !== undefined && !flags.timedOut && !flags.isCanceled) flags[why] = true;
    killGroup();
  };
  const overflow = () => {
    isMaxBuffer = true;
    kill();
  };
  const stdout = captureOutput(child.stdout, maxBuffer, overflow);
  const stderr = captureOutput(child.stderr, maxBuffer, overflow);
  const timer = safeTimeout(options.timeoutMs, () => {
    kill('timedOut');
  });
  const onAbort = () => {
    kill('isCanceled');
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  return new Promise((resolve) => {
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (result: ProcessResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      const output = { stdout: stdout(), stderr: stderr(), isMaxBuffer };
      resolve({ ...result, ...output, failed: result.failed || isMaxBuffer });
    };
    child.on('error', (error) => {
      if (pid === undefined) settle(notStarted(error, elapsed()));
    });
    child.once('exit', (code, signal) => {
      if (pid === undefined) return;
      killGroup();
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        settle(ended(code, signal, flags, elapsed()));
      }, OUTPUT_DRAIN_MS);
      drainTimer.unref();
    });
    child.once('close', (code, signal) => {
      if (pid !== undefined) settle(ended(code, signal, flags, elapsed()));
    });
  });
}

/** How long a finished short command's output may stay open (held by a process it set free). */
const OUTPUT_DRAIN_MS = 1000;

/**
 * Starts a process that is meant to outlive this one (`ralph run --detach`): its own session
 * (setsid, so this terminal closing or its Ctrl+C do not reach it), output to `outputFd`, not
 * bound to our life (no parent-death signal, not in the kill set) and not keeping our event
 * loop alive. The caller may close `outputFd` at once: the child has its own copy.
 */
export function startDetached(
  file: string,
  args: readonly string[],
  options: DetachedOptions,
): DetachedProcess {
  const elapsed = stopwatch();
  let child: ChildProcess;
  try {
    child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', options.outputFd, options.outputFd],
    });
  } catch (error) {
    return { pid: undefined, result: Promise.resolve(notStarted(error, elapsed())) };
  }
  const result = exitOf(child, elapsed);
  child.unref();
  return { pid: child.pid, result };
}

/**
 * Runs a program on this terminal (stdin, stdout and stderr inherited), e.g. `tmux attach`,
 * and resolves when it exits. No time limit: the person decides when it ends.
 */
export function runInteractive(
  file: string,
  args: readonly string[],
  options: { env?: Readonly<Record<string, string | undefined>>; cwd?: string },
): Promise<ProcessResult> {
  const elapsed = stopwatch();
  try {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env, stdio: 'inherit' });
    return exitOf(child, elapsed);
  } catch (error) {
    return Promise.resolve(notStarted(error, elapsed()));
  }
}

/** How a child without piped output ends: at its exit, or at once when it cannot start. */
function exitOf(child: ChildProcess, elapsed: () => number): Promise<ProcessResult> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(ended(code, signal, {}, elapsed()));
    });
    // Only a failed start ends it here; a later error (a failed kill) comes before 'exit'.
    child.on('error', (error) => {
      if (child.pid === undefined) resolve(notStarted(error, elapsed()));
    });
  });
}

function safeTimeout(ms: number | undefined, action: () => void): NodeJS.Timeout | undefined {
  if (ms === undefined || ms <= 0 || !Number.isFinite(ms)) return undefined;
  // setTimeout fires at once for delays beyond 2^31-1 ms; such limits mean "practically none".
  return ms > 2_147_483_647 ? undefined : setTimeout(action, ms);
}

/**
 * Starts a long-running process (an agent) in its own process group with stdin from /dev/null
 * (or fed `input`, then closed),
 * streams stdout line by line (never buffering the whole output) and resolves when the process
 * and its output are done. A timeout or abort sends SIGTERM to the whole group, then SIGKILL after
 * `killGraceMs`. Never rejects for the child's failures (non-zero exit, signal, spawn error); it
 * rejects only when `onLine` / `onStderr` throw, after killing the group.
 */
export function spawnStreaming(
  file: string,
  args: readonly string[],
  options: StreamingOptions,
): Promise<ProcessResult> {
  const elapsed = stopwatch();
  if (options.signal?.aborted === true) {
    return Promise.resolve(ended(undefined, undefined, { isCanceled: true }));
  }
  let child: ChildProcess;
  let exitCodeCarriesSignal = false;
  try {
    // The agent dies with ralph (parent-death.ts): it must never outlive ralph's guard. The
    // sandbox goes inside that binding, so the kernel's kill reaches it (and its --die-with-parent
    // takes the tree inside along).
    const command = options.wrap?.(file, args) ?? { file, args };
    exitCodeCarriesSignal = command.exitCodeCarriesSignal === true;
    const target = bindToParentLife(command.file, command.args, options.env);
    child = spawn(target.file, target.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    if (options.input !== undefined) feedStdin(child.stdin, options.input);
  } catch (error) {
    // Invalid arguments (a NUL byte in argv, …) throw synchronously instead of emitting 'error'.
    return Promise.resolve(notStarted(error, elapsed()));
  }
  const { pid } = child;
  if (pid !== undefined) {
    return superviseChild(child, pid, options, elapsed).then((result) =>
      exitCodeCarriesSignal ? withSignalFromExitCode(result) : result,
    );
  }
  return new Promise((resolve) => {
    child.once('error', (error) => {
      resolve(notStarted(error, elapsed()));
    });
  });
}

/** Exit code 128+N of a wrapper as the signal N that killed the wrapped command. */
function withSignalFromExitCode(result: ProcessResult): ProcessResult {
  const { exitCode } = result;
  if (exitCode === undefined || exitCode <= 128 || result.signal !== undefined) return result;
  const signal = (Object.keys(constants.signals) as NodeJS.Signals[]).find(
    (name) => constants.signals[name] === exitCode - 128,
  );
  return signal === undefined ? result : { ...result, exitCode: undefined, signal };
}

function superviseChild(
  child: ChildProcess,
  pid: number,
  options: StreamingOptions,
  elapsed: () => number,
): Promise<ProcessResult> {
  const { stdout, stderr } = child;
  if (stdout === null || stderr === null) throw new Error('spawnStreaming: stdio must be piped');
  const graceMs = options.killGraceMs ?? 5000;
  const groups = options.processGroups;
  groups?.add(pid);

  let reason: 'timeout' | 'idle' | 'abort' | 'callback' | undefined;
  let termSent = false;
  let killTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;
  let callbackError: { error: unknown } | undefined;
  // Set when we stop waiting for output a process outside the group still holds: the pipes are
  // destroyed on purpose, and the premature close that follows is the expected end.
  let abandoned = false;
  const abandonPipes = () => {
    abandoned = true;
    stdout.destroy();
    stderr.destroy();
  };

  // SIGTERM to the whole group once, then SIGKILL to whatever is left after the grace period.
  const killGroup = () => {
    if (termSent) return;
    termSent = true;
    signalGroup(pid, 'SIGTERM');
    killTimer = setTimeout(() => {
      signalGroup(pid, 'SIGKILL');
      groups?.delete(pid);
      // A member that left the group (setsid) may still hold our pipes; stop waiting for it.
      setTimeout(abandonPipes, 1000).unref();
    }, graceMs);
    killTimer.unref();
  };
  let leaderExited = false;
  const terminate = (why: NonNullable<typeof reason>) => {
    // Once the agent has exited by itself, a limit passing while its output drains changes nothing.
    if (!leaderExited) reason ??= why;
    killGroup();
  };
  const fail = (error: unknown) => {
    callbackError ??= { error };
    terminate('callback');
  };

  const on = (why: NonNullable<typeof reason>) => () => {
    terminate(why);
  };
  const wallTimer = safeTimeout(options.timeoutMs, on('timeout'));
  const idleTimer = safeTimeout(options.idleTimeoutMs, on('idle'));
  const onAbort = on('abort');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    options.onSpawn?.(pid);
  } catch (error) {
    fail(error);
  }

  stderr.setEncoding('utf8');
  stderr.on('data', (chunk: string) => {
    idleTimer?.refresh();
    try {
      options.onStderr?.(chunk);
    } catch (error) {
      fail(error);
    }
  });
  const pumped = pumpLines(stdout, {
    maxLineBytes: options.maxLineBytes,
    onChunk: options.onChunk,
    onLine: options.onLine,
    onActivity: () => idleTimer?.refresh(),
  }).catch((error: unknown) => {
    if (!abandoned) fail(error);
  });

  let exitCode: number | undefined;
  let exitSignal: NodeJS.Signals | undefined;
  const closed = new Promise<void>((resolve) => {
    child.once('exit', () => {
      leaderExited = true;
      // The leader is gone; anything it left in its group (background jobs) goes too, so no
      // iteration leaves processes behind and a job holding our stdout cannot stall the run.
      if (signalGroup(pid, 0)) killGroup();
      // A process that left the group (setsid -f, a daemon) can hold stdout open forever: once
      // the agent is gone, its output gets a grace period to drain, then we stop waiting.
      drainTimer = setTimeout(abandonPipes, graceMs + 1000);
      drainTimer.unref();
    });
    child.once('close', (code, signal) => {
      exitCode = code ?? undefined;
      exitSignal = signal ?? undefined;
      resolve();
    });
  });

  return Promise.all([closed, pumped]).then(() => {
    clearTimeout(wallTimer);
    clearTimeout(idleTimer);
    clearTimeout(drainTimer);
    options.signal?.removeEventListener('abort', onAbort);
    // Keep the SIGKILL pending only while members (e.g. ones ignoring SIGTERM) remain.
    if (signalGroup(pid, 0)) {
      killGroup();
    } else {
      clearTimeout(killTimer);
      groups?.delete(pid);
    }
    if (callbackError !== undefined) throw callbackError.error;
    const timedOut = reason === 'timeout' || reason === 'idle';
    const flags = { timedOut, idleTimedOut: reason === 'idle', isCanceled: reason === 'abort' };
    return ended(exitCode, exitSignal, flags, elapsed());
  });
}
