import { homedir } from 'node:os';

/** What a command may touch of the outside world, injected so tests can run commands in-process. */
export interface CliContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  homeDir?: string;
}

/** How a command reports its exit code (cli/exit.ts and main.ts act on it). */
export type SetExitCode = (code: number) => void;

export function homeDirOf(context: CliContext): string {
  return context.homeDir ?? context.env.HOME ?? homedir();
}

export function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${text}\n`);
}
