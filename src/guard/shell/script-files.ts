import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { absolutePath, isAgentWritable, writerOf } from '../path-rules.js';
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

/** Programs whose output is a binary run by its path next (`gcc -o app && ./app`). */
const BUILDERS = new Set([
  'gcc',
  'g++',
  'cc',
  'c++',
  'clang',
  'clang++',
  'ld',
  'go',
  'cargo',
  'rustc',
  'zig',
  'swiftc',
  'javac',
  'kotlinc',
  'ghc',
  'nim',
  'make',
  'cmake',
  'ninja',
  'dotnet',
  'tsc',
  'esbuild',
  'bun',
  'deno',
  'pyinstaller',
]);

/** Larger than any hand-written script; bigger ones are refused rather than half-read. */
export const MAX_SCRIPT_BYTES = 1024 * 1024;

const SHELL_SHEBANG = /^#!\s*(?:\S*\/)?(?:env\s+(?:-\S+\s+)*)?(?:ba|da|z|k|mk|a)?sh\b/;

/**
 * `bash FILE`, `source FILE`, `bash < FILE`: the file is shell code whatever it looks like.
 * `fromStdin`: a redirect from a file that is not there fails before anything runs.
 */
export function judgeShellScriptArg(
  command: SimpleCommand,
  file: Arg,
  judge: Judge,
  fromStdin = false,
): void {
  const value = valueOf(file);
  if (value === undefined) return; // the callers refuse a dynamic script name themselves
  const path = scriptToRead(command, value, judge, fromStdin ? 'stdin' : 'script');
  const text = path === undefined ? undefined : readText(path);
  if (text !== undefined) judgeScriptText(command, judge, text, `script ${value}`);
}

/**
 * A program run by its path (`./deploy`, `scripts/clean.sh`): a shell script when its first line
 * names a shell, or when it has no `#!` line at all and is text (the shell then runs it itself).
 */
export function judgeProgramFile(command: SimpleCommand, judge: Judge): void {
  if (!command.path.includes('/')) return; // found on PATH: an installed program
  const path = scriptToRead(command, command.path, judge, 'program');
  if (path === undefined) return;
  const head = readText(path, 256);
  if (head === undefined || head.includes('\0')) return; // a binary
  if (head.startsWith('#!') && !SHELL_SHEBANG.test(head)) return; // python, node, …
  const text = readText(path);
  if (text !== undefined) judgeScriptText(command, judge, text, `script ${command.path}`);
}

/**
 * The script file to read, when the agent could have written it: inside the project or a
 * writable folder (a program installed elsewhere, or the person's own dotfiles, is not the
 * agent's), changed since the run began (`scriptsChangedSince`: files with an older ctime were
 * there before; ctime cannot be set back, unlike mtime), and not written by this very command.
 * A script (`bash x.sh`) that is not there yet is refused: this command would create it first,
 * in a way the guard did not see. A program run by its path may well be missing, or written
 * here, when a build in the same command makes it (`cargo build && ./target/debug/app`).
 */
function scriptToRead(
  command: SimpleCommand,
  value: string,
  judge: Judge,
  kind: 'script' | 'stdin' | 'program',
): string | undefined {
  const { policy } = judge;
  const runs = `\`${shown(command)}\` runs ${value}`;
  const path = absolutePath(value, command.cwd);
  if (path === undefined) {
    judge.deny(
      'unknown-cwd',
      `${runs} after a \`cd\` the guard cannot follow, so it cannot read it; use an absolute path`,
    );
    return undefined;
  }
  if (!isAgentWritable(path, policy)) return undefined;
  const writer = writerOf(path, policy) ?? policy.unseenWriter;
  if (writer !== undefined && !(kind === 'program' && BUILDERS.has(writer))) {
    const how =
      writer === policy.unseenWriter && writerOf(path, policy) === undefined
        ? `after ${writer}, which may rewrite it unseen`
        : `which this same command writes (${writer})`;
    judge.deny(
      'script-written-here',
      `${runs} ${how}, so the guard would judge what it held before; write it in one step and run it in the next`,
    );
    return undefined;
  }
  if (writer !== undefined) return undefined; // a build's output: a binary, as a rule
  let stats;
  try {
    stats = statSync(path);
  } catch {
    if (kind !== 'script') return undefined;
    judge.deny(
      'script-missing',
      `${runs}, which does not exist yet, so the guard cannot read it; create it in one step and run it in the next`,
    );
    return undefined;
  }
  if (!stats.isFile()) return undefined;
  const since = policy.scriptsChangedSince;
  if (since !== undefined && stats.ctimeMs < since) return undefined;
  if (stats.size > MAX_SCRIPT_BYTES) {
    judge.deny(
      'script-too-large',
      `${runs}, ${stats.size} bytes: too large for the guard to check`,
    );
    return undefined;
  }
  return path;
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

/** The file's first `bytes` (all of it by default) as text; undefined when it cannot be read. */
function readText(path: string, bytes?: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = bytes ?? fstatSync(fd).size;
    const buffer = Buffer.alloc(size);
    const read = readSync(fd, buffer, 0, size, 0);
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

/** git commands that rewrite files in the work tree without naming them. */
const GIT_REWRITES = new Set([
  'restore',
  'reset',
  'stash',
  'merge',
  'pull',
  'rebase',
  'cherry-pick',
  'revert',
  'am',
  'apply',
  'checkout',
  'switch',
]);

/**
 * A program that writes files without naming them (an archive's contents, a patch, a checkout):
 * after it, in the same command, any script may hold new text the guard cannot see.
 */
export function unseenWriterOf(command: SimpleCommand): string | undefined {
  const words = command.args.map((arg) => valueOf(arg) ?? '');
  const operands = words.filter((word) => !word.startsWith('-'));
  switch (command.name) {
    case 'tar':
    case 'bsdtar': {
      const mode = words.find((word) => !word.startsWith('--')) ?? '';
      return /^-?[A-Za-z]*x/.test(mode) || words.includes('--extract') ? 'tar x' : undefined;
    }
    case 'unzip':
    case 'patch':
    case 'cpio':
      return command.name;
    case '7z':
    case '7za':
      return operands[0] === 'x' || operands[0] === 'e' ? '7z x' : undefined;
    case 'git': {
      const sub = operands.find((word) => GIT_REWRITES.has(word));
      if (sub === undefined) return undefined;
      // A new branch from HEAD changes no file.
      const creates = words.some((word) => ['-b', '-B', '-c', '-C', '--orphan'].includes(word));
      return (sub === 'checkout' || sub === 'switch') && creates ? undefined : `git ${sub}`;
    }
    default:
      return undefined;
  }
}
