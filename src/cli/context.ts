import { homedir } from 'node:os';
import { terminalText } from '../util/control-chars.js';

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

/**
 * One line for a person. Whatever it quotes (agent text, story titles, ids, paths) goes through
 * terminalText: control and escape sequences are shown, never acted on by the terminal.
 */
export function writeLine(stream: NodeJS.WritableStream, text = ''): void {
  stream.write(`${terminalText(text)}\n`);
}

/**
 * A line holding ralph's own colour codes: the caller put every other part of it through
 * terminalText (colored below does), as writeLine would strip the colours too.
 */
export function writeStyledLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${text}\n`);
}

/** `text` (made terminal-safe) in SGR colour `code`, or plain without colour. */
export function colored(text: string, code: number | undefined, color: boolean): string {
  const safe = terminalText(text);
  return color && code !== undefined ? `\u001b[${code}m${safe}\u001b[0m` : safe;
}
