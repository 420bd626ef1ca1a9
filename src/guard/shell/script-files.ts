import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { absolutePath } from '../path-rules.js';
import type { Finding, Judge, SimpleCommand } from './analyze.js';
import { shown, valueOf } from './args.js';
import type { Arg } from './words.js';

/**
 * Shell code the agent runs from a file: a shell script (`bash x.sh`, `./x.sh`, `source x.sh`)
 * and the package scripts npm, pnpm, yarn and bun run (`npm test`, `npm run build`). The agent
 * can write either a moment before it runs it, so judging only what it types would let
 * `rm -rf ~` through a file. The file's text is judged like a command the agent typed, when the
 * call is made, and a denial names the file it came from.
 *
 * Programs in other languages run from a file (`python3 build.py`, a test runner) are not read:
 * a whole program is not a one-liner, and scanning one for shell-outs would refuse ordinary
 * work. Makefiles are not read either (make's own syntax is not shell).
 */

/** Larger than any hand-written script; bigger ones are refused rather than half-read. */
export const MAX_SCRIPT_BYTES = 1024 * 1024;

const SHELL_SHEBANG = /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?(?:ba|da|z|k|mk|a)?sh\b/;

/** `bash FILE`, `source FILE`: the file is shell code whatever it looks like. */
export function judgeShellScriptArg(command: SimpleCommand, file: Arg, judge: Judge): void {
  const value = valueOf(file);
  if (value === undefined) return; // the callers refuse a dynamic script name themselves
  const path = absolutePath(value, command.cwd ?? judge.policy.projectRoot);
  if (path === undefined) return;
  const text = readScript(path, command, judge);
  if (text !== undefined) judgeScriptText(command, judge, text, `script ${value}`);
}

/**
 * A program run by its path (`./deploy`, `scripts/clean.sh`): a shell script when its first line
 * names a shell, or when it has no `#!` line at all and is text (the shell then runs it itself).
 */
export function judgeProgramFile(command: SimpleCommand, judge: Judge): void {
  if (!command.path.includes('/')) return; // found on PATH: an installed program
  const path = absolutePath(command.path, command.cwd ?? judge.policy.projectRoot);
  if (path === undefined) return;
  const head = readHead(path);
  if (head === undefined || head.includes('\0')) return; // missing, or a binary
  if (head.startsWith('#!') && !SHELL_SHEBANG.test(head)) return; // python, node, …
  const text = readScript(path, command, judge);
  if (text !== undefined) judgeScriptText(command, judge, text, `script ${command.path}`);
}

/**
 * The scripts already judged in one decision (keyed by its findings list, which lives exactly as
 * long): a script that runs itself (`"lint": "pnpm -w run lint"`) or one reached twice is judged
 * once, rather than until the depth limit refuses it.
 */
const judged = new WeakMap<Finding[], Set<string>>();

/** Judges script text one level deeper, and says in every resulting finding where it came from. */
export function judgeScriptText(
  command: SimpleCommand,
  judge: Judge,
  text: string,
  where: string,
): void {
  const seen = judged.get(judge.findings) ?? new Set<string>();
  judged.set(judge.findings, seen);
  const key = `${command.cwd ?? ''}\0${where}`;
  if (seen.has(key)) return;
  seen.add(key);
  const before = judge.findings.length;
  judge.shell(withoutShebang(text), command.cwd, command.depth + 1, where);
  for (const finding of judge.findings.slice(before))
    finding.reason = `${where} (run by \`${shown(command)}\`): ${finding.reason}`;
}

function readScript(path: string, command: SimpleCommand, judge: Judge): string | undefined {
  let size: number;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return undefined;
    size = stats.size;
  } catch {
    return undefined; // nothing there: the shell reports it, nothing runs
  }
  if (size > MAX_SCRIPT_BYTES) {
    judge.deny(
      'script-too-large',
      `\`${shown(command)}\` runs ${basename(path)}, ${size} bytes: too large for the guard to check`,
    );
    return undefined;
  }
  return readHead(path, size);
}

/** The first `bytes` of a file as text; undefined when it cannot be read. */
function readHead(path: string, bytes = 256): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** bash reads `#!…` as a comment too; dropping it keeps an unusual interpreter line parseable. */
function withoutShebang(text: string): string {
  return text.startsWith('#!') ? text.slice(text.indexOf('\n') + 1 || text.length) : text;
}
