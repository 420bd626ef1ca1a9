import type { ProcessGroups } from './process-groups.js';
import type { ProcessResult } from './process-result.js';

/** The options and handles of agents/spawn.ts's functions (kept apart: spawn.ts stays readable). */

export interface RunToCompletionOptions {
  /** Wall-clock limit; the group gets SIGKILL when it passes (short commands: nothing to save). */
  timeoutMs: number;
  /** The child's environment; Node's default (this process's) when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Aborting kills the group (SIGKILL), like the timeout. */
  signal?: AbortSignal;
  /** Bytes kept of stdout and of stderr each; more kills the process. Default 1 MiB. */
  maxBuffer?: number;
}

export interface DetachedOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** An open file descriptor for the child's stdout and stderr (a log file); stdin is /dev/null. */
  outputFd: number;
}

export interface DetachedProcess {
  /** Undefined when it could not be started (result says why). */
  pid: number | undefined;
  /** Settles when it ends, should this process still be there to see it. */
  result: Promise<ProcessResult>;
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
  /** Lines longer than this are cut, for onChunk and onLine alike (line-splitter.ts). */
  maxLineBytes?: number | undefined;
  onStderr?: (chunk: string) => void;
  /** The child's pid (= its process group id), e.g. to record it for `ralph stop`. */
  onSpawn?: (pid: number) => void;
  /** How long SIGTERM may take before the group gets SIGKILL. */
  killGraceMs?: number;
  /** The run's record of live groups (process-groups.ts): this one is in it until it ends. */
  processGroups?: ProcessGroups | undefined;
  /** Rewrites the command before it starts, e.g. to run it inside an OS sandbox. */
  wrap?: CommandWrapper | undefined;
  /** Written to the child's stdin, which is then closed (the prompt); /dev/null when absent. */
  input?: string | undefined;
}

/**
 * A command in, the command that runs it in some other way (inside a sandbox) out.
 * `exitCodeCarriesSignal`: the wrapper exits 128+N when the command was killed by signal N (as
 * bubblewrap does); the result then names the signal, as it would unwrapped.
 */
export type CommandWrapper = (
  file: string,
  args: readonly string[],
) => { file: string; args: readonly string[]; exitCodeCarriesSignal?: boolean };
