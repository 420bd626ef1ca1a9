import { execFile } from 'node:child_process';

/**
 * The only module that starts processes (design.md §1). For now it runs short commands to
 * completion; the loop engine adds long-running, process-group-wide spawning here.
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
