import { performance } from 'node:perf_hooks';

/**
 * How a process started by spawn.ts ended: one shape for every way it starts one, with execa's
 * field names and meanings (execa 9 with `reject: false`), so a reader who knows execa reads
 * these without a glossary. Nothing here throws for the child's failures: a non-zero exit, a
 * signal, a timeout or an executable that cannot be started are all results.
 *
 * Why not execa itself (it supports Node 20.5+): an agent needs what it does not give — its own
 * process group killed as a whole (SIGTERM, then SIGKILL), setpriv's parent-death binding, an
 * idle timeout, byte-exact chunks and lines with back-pressure, and giving up on pipes a setsid'd
 * grandchild still holds — and it would add 23 packages to every start of the CLI.
 */
export interface ProcessResult {
  /** Undefined when a signal ended the process or it never started. */
  exitCode: number | undefined;
  /** The signal that ended the process (SIGTERM after a timeout, SIGKILL after the grace). */
  signal: NodeJS.Signals | undefined;
  /** Anything but exit code 0: not started, non-zero exit, signal, timeout or cancel. */
  failed: boolean;
  /** A time limit (the wall clock, or the idle limit of spawnStreaming) passed and it was killed. */
  timedOut: boolean;
  /** ralph's addition to execa's fields: the idle limit was the one that passed (timedOut too). */
  idleTimedOut: boolean;
  /** The caller's AbortSignal aborted and the process was killed (execa's cancelSignal). */
  isCanceled: boolean;
  /**
   * Set exactly when the executable could not be started (nothing ran): Node's error code,
   * `ENOENT`, `EACCES`, … (execa's `error.code`); `UNKNOWN` if the error carried none.
   */
  code: string | undefined;
  /** That error's own message, e.g. `spawn /x ENOENT` (execa's `originalMessage`). */
  originalMessage: string | undefined;
  durationMs: number;
}

/** A result whose output was collected (runToCompletion): decoded as UTF-8. */
export interface CapturedResult extends ProcessResult {
  stdout: string;
  stderr: string;
  /** Output passed `maxBuffer`: the process was killed and the output cut there (failed). */
  isMaxBuffer: boolean;
}

/** Milliseconds since this call, rounded: a result's durationMs. */
export function stopwatch(): () => number {
  const started = performance.now();
  return () => Math.round(performance.now() - started);
}

/** The result of a process that could not be started. */
export function notStarted(error: unknown, durationMs: number): ProcessResult {
  const details = error as Partial<NodeJS.ErrnoException> | undefined;
  const code = typeof details?.code === 'string' ? details.code : 'UNKNOWN';
  const originalMessage = typeof details?.message === 'string' ? details.message : String(error);
  return { ...ended(undefined, undefined), code, originalMessage, failed: true, durationMs };
}

/** The result of a process that ran and ended; the flags are the caller's to set. */
export function ended(
  exitCode: number | null | undefined,
  signal: NodeJS.Signals | null | undefined,
  flags: { timedOut?: boolean; idleTimedOut?: boolean; isCanceled?: boolean } = {},
  durationMs = 0,
): ProcessResult {
  const timedOut = flags.timedOut ?? false;
  const isCanceled = flags.isCanceled ?? false;
  return {
    exitCode: exitCode ?? undefined,
    signal: signal ?? undefined,
    failed: exitCode !== 0 || timedOut || isCanceled,
    timedOut,
    idleTimedOut: flags.idleTimedOut ?? false,
    isCanceled,
    code: undefined,
    originalMessage: undefined,
    durationMs,
  };
}

/**
 * Collects a stream's bytes up to `maxBuffer`, calling `overflow` once when more arrive, and
 * returns a reader of what was kept, decoded as UTF-8 once (no character split between chunks).
 */
export function captureOutput(
  stream: NodeJS.ReadableStream | null,
  maxBuffer: number,
  overflow: () => void,
): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  let full = false;
  stream?.on('data', (chunk: Buffer) => {
    if (full) return;
    if (size + chunk.length > maxBuffer) {
      chunks.push(chunk.subarray(0, maxBuffer - size));
      full = true;
      overflow();
      return;
    }
    size += chunk.length;
    chunks.push(chunk);
  });
  return () => Buffer.concat(chunks).toString('utf8');
}
