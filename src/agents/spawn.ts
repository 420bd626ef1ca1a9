import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { pumpLines } from './line-splitter.js';
import { bindToParentLife } from './parent-death.js';
import { signalGroup, type ProcessGroups } from './process-groups.js';

/**
 * The only module that starts processes (design.md §1): short commands run to completion
 * (`runCommand`), long-running agents stream their output line by line (`spawnStreaming`).
 */

export interface CommandResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the executable could not be started at all (ENOENT, EACCES, …). */
  spawnErrorCode: string | undefined;
}

export interface RunCommandOptions {
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  cwd?: string;
}

export function runCommand(
  file: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        env: options.env,
        cwd: options.cwd,
        encoding: 'utf8',
        maxBuffer: 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ exitCode: 0, stdout, stderr, timedOut: false, spawnErrorCode: undefined });
          return;
        }
        const details = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
        const spawnErrorCode = typeof details.code === 'string' ? details.code : undefined;
        resolve({
          exitCode: typeof details.code === 'number' ? details.code : undefined,
          stdout,
          stderr,
          timedOut: details.killed === true && spawnErrorCode === undefined,
          spawnErrorCode,
        });
      },
    );
  });
}

export interface StreamingOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Wall-clock limit for the whole run; 0 or Infinity means none. */
  timeoutMs: number;
  /** Kill the process when it has printed nothing (stdout or stderr) for this long. */
  idleTimeoutMs?: number;
  /** Aborting kills the whole process group, like a timeout. */
  signal?: AbortSignal;
  /**
   * Every stdout line, without its terminator (\n or \r\n), in order. Returning a promise (here
   * or from onChunk) holds back further output until it settles: back-pressure.
   */
  onLine: (line: string) => void | Promise<void>;
  /** The raw stdout bytes as they arrive, before onLine sees their lines (a byte-exact log). */
  onChunk?: (chunk: Buffer) => void | Promise<void>;
  onStderr?: (chunk: string) => void;
  /** The child's pid (= its process group id), e.g. to record it for `ralph stop`. */
  onSpawn?: (pid: number) => void;
  /** How long SIGTERM may take before the group gets SIGKILL. */
  killGraceMs?: number;
  /** The run's record of live groups (process-groups.ts): this one is in it until it ends. */
  processGroups?: ProcessGroups | undefined;
}

/** execa's field semantics: exitCode is undefined when a signal ended the process. */
export interface StreamingResult {
  exitCode: number | undefined;
  exitSignal: NodeJS.Signals | undefined;
  /** The wall-clock or the idle limit passed and ralph killed the process group. */
  timedOut: boolean;
  /** The idle limit (no output) was the one that passed. */
  idleTimedOut: boolean;
  /** The caller's signal aborted and ralph killed the process group. */
  canceled: boolean;
  /** Why the executable could not be started (ENOENT, EACCES, …); nothing ran. */
  spawnError: string | undefined;
  durationMs: number;
}

function spawnFailure(error: unknown): string {
  const details = error as NodeJS.ErrnoException;
  return typeof details.code === 'string' ? details.code : details.message;
}

function safeTimeout(ms: number | undefined, action: () => void): NodeJS.Timeout | undefined {
  if (ms === undefined || ms <= 0 || !Number.isFinite(ms)) return undefined;
  // setTimeout fires at once for delays beyond 2^31-1 ms; such limits mean "practically none".
  return ms > 2_147_483_647 ? undefined : setTimeout(action, ms);
}

/**
 * Starts a long-running process (an agent) in its own process group with stdin from /dev/null,
 * streams stdout line by line (never buffering the whole output) and resolves when the process
 * and its output are done. A timeout or abort sends SIGTERM to the whole group, then SIGKILL after
 * `killGraceMs`. Never rejects for the child's failures (non-zero exit, signal, spawn error); it
 * rejects only when `onLine` / `onStderr` throw, after killing the group.
 */
export function spawnStreaming(
  file: string,
  args: readonly string[],
  options: StreamingOptions,
): Promise<StreamingResult> {
  const started = performance.now();
  const base = { exitCode: undefined, exitSignal: undefined, timedOut: false, idleTimedOut: false };
  const elapsed = () => Math.round(performance.now() - started);
  if (options.signal?.aborted === true) {
    return Promise.resolve({ ...base, canceled: true, spawnError: undefined, durationMs: 0 });
  }
  let child: ChildProcess;
  try {
    // The agent dies with ralph (parent-death.ts): it must never outlive ralph's guard.
    const target = bindToParentLife(file, args, options.env);
    child = spawn(target.file, target.args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  } catch (error) {
    // Invalid arguments (a NUL byte in argv, …) throw synchronously instead of emitting 'error'.
    const spawnError = spawnFailure(error);
    return Promise.resolve({ ...base, canceled: false, spawnError, durationMs: elapsed() });
  }
  const { pid } = child;
  if (pid !== undefined) return superviseChild(child, pid, options, elapsed);
  return new Promise((resolve) => {
    child.once('error', (error) => {
      resolve({ ...base, canceled: false, spawnError: spawnFailure(error), durationMs: elapsed() });
    });
  });
}

function superviseChild(
  child: ChildProcess,
  pid: number,
  options: StreamingOptions,
  elapsed: () => number,
): Promise<StreamingResult> {
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
    return {
      exitCode,
      exitSignal,
      timedOut: reason === 'timeout' || reason === 'idle',
      idleTimedOut: reason === 'idle',
      canceled: reason === 'abort',
      spawnError: undefined,
      durationMs: elapsed(),
    };
  });
}
