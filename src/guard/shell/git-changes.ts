import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { writeProblem } from '../path-rules.js';
import type { Judge, SimpleCommand } from './analyze.js';
import { checkWrite, shown, valueOf } from './args.js';
import type { Arg } from './words.js';

/**
 * git subcommands that change what lies outside the repository's history or the guard's view:
 * pushes that rewrite or delete remote branches, `clean -x` (ignored files: ralph's logs,
 * Claude's local settings), files written from another commit (`checkout <ref> -- .claude`,
 * `restore --source`) and patches (`git apply`), whose target files are read out of the patch.
 * Each returns true when it refused the command.
 */

/** A patch larger than this is not read: refused, as its targets cannot be checked. */
const MAX_PATCH_BYTES = 4 * 1024 * 1024;

export function judgeGitChange(
  command: SimpleCommand,
  judge: Judge,
  sub: string | undefined,
  rest: readonly Arg[],
): boolean {
  switch (sub) {
    case 'push':
      return gitPush(command, judge, rest);
    case 'clean':
      return gitCleanIgnored(command, judge, rest);
    case 'checkout':
    case 'restore':
      gitPathWrites(command, judge, sub, rest);
      return false;
    case 'apply':
      return gitApply(command, judge, rest);
    default:
      return false;
  }
}

function gitPush(command: SimpleCommand, judge: Judge, rest: readonly Arg[]): boolean {
  let operands = 0;
  for (const arg of rest) {
    const value = valueOf(arg);
    if (value === undefined) continue;
    const rewrites = value.startsWith('-')
      ? /^--(force|force-with-lease|force-if-includes|mirror|delete|prune)(=|$)/.test(value) ||
        /^-[a-zA-Z]*[fd]/.test(value)
      : // The first operand is the remote; a refspec `+src:dst` forces, `:dst` deletes.
        operands++ > 0 && /^[+:]/.test(value);
    if (rewrites) {
      judge.deny(
        'force-push',
        `\`${shown(command)}\` rewrites or deletes remote history (${value}); push new commits only`,
      );
      return true;
    }
  }
  return false;
}

/** Values of these options are patterns or paths, not pathspecs. */
const CLEAN_VALUES = new Set(['-e', '--exclude']);

function gitCleanIgnored(command: SimpleCommand, judge: Judge, rest: readonly Arg[]): boolean {
  const values = rest.map((arg) => valueOf(arg));
  const force = values.some((value) => value === '--force' || /^-[a-zA-Z]*f/.test(value ?? ''));
  const ignored = values.some((value) => /^-[a-zA-Z]*[xX]/.test(value ?? ''));
  if (!force || !ignored) return false;
  const pathspecs = rest.filter((arg, index) => {
    const value = valueOf(arg);
    if (value === undefined) return true;
    if (value.startsWith('-')) return false;
    return !CLEAN_VALUES.has(valueOf(rest[index - 1]) ?? '');
  });
  if (pathspecs.length === 0) {
    judge.deny(
      'protected-path',
      `\`${shown(command)}\` deletes every ignored file, ralph's logs and Claude's local settings among them; name the folders to clean (\`git clean -fdx dist\`)`,
    );
    return true;
  }
  for (const spec of pathspecs) checkWrite(judge, command, spec, 'delete');
  return false;
}

/** `git checkout <ref> -- PATHS`, `git restore [--source X] PATHS`: each path is written. */
function gitPathWrites(
  command: SimpleCommand,
  judge: Judge,
  sub: string,
  rest: readonly Arg[],
): void {
  const dashes = rest.findIndex((arg) => valueOf(arg) === '--');
  const operands = (dashes < 0 ? rest : rest.slice(dashes + 1)).filter(
    (arg, index, all) =>
      arg.dynamic ||
      (!arg.value.startsWith('-') &&
        !/^(-s|--source|-b|-B|--orphan)$/.test(valueOf(all[index - 1]) ?? '')),
  );
  // Without `--`, checkout's first operand is the branch or commit.
  const paths = sub === 'checkout' && dashes < 0 ? operands.slice(1) : operands;
  for (const path of paths) checkWrite(judge, command, path, 'write');
}

function gitApply(command: SimpleCommand, judge: Judge, rest: readonly Arg[]): boolean {
  const values = rest.map((arg) => valueOf(arg));
  // --check, --stat, --numstat and --summary only look.
  if (values.some((value) => /^--(check|stat|numstat|summary)$/.test(value ?? ''))) return false;
  const patches = rest.filter((arg) => arg.dynamic || !arg.value.startsWith('-'));
  const sources: (Arg | undefined)[] = [...patches];
  if (patches.length === 0) {
    const { stdin } = command;
    if (stdin?.kind === 'file') sources.push(stdin.arg);
    else if (stdin?.kind === 'text' && stdin.text !== undefined) {
      return patchTargets(command, judge, stdin.text);
    } else sources.push(undefined);
  }
  for (const source of sources) {
    const text =
      source === undefined || source.dynamic ? undefined : readPatch(command, source.value);
    if (text === undefined) {
      judge.deny(
        'unseen-patch',
        `\`${shown(command)}\` applies a patch the guard cannot read (from a pipe, a variable or an unreadable file), so the files it writes cannot be checked; save it to a file first`,
      );
      return true;
    }
    if (patchTargets(command, judge, text)) return true;
  }
  return false;
}

function readPatch(command: SimpleCommand, value: string): string | undefined {
  const base = command.cwd;
  if (base === undefined && !isAbsolute(value)) return undefined;
  const path = resolve(base ?? '/', value);
  try {
    if (statSync(path).size > MAX_PATCH_BYTES) return undefined;
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The files a unified or git diff writes, checked like any other write. */
function patchTargets(command: SimpleCommand, judge: Judge, text: string): boolean {
  const targets = new Set<string>();
  for (const line of text.split('\n')) {
    const git = /^diff --git a\/(\S+) b\/(\S+)/.exec(line);
    if (git !== null) {
      targets.add(git[1] ?? '');
      targets.add(git[2] ?? '');
      continue;
    }
    const file = /^(\+\+\+|---|rename to|copy to) (?:[ab]\/)?(\S+)/.exec(line);
    if (file !== null && file[2] !== '/dev/null') targets.add(file[2] ?? '');
  }
  for (const target of targets) {
    if (target === '') continue;
    const path = resolve(command.cwd ?? judge.policy.projectRoot, target);
    const problem = writeProblem(path, 'write', judge.policy);
    if (problem !== undefined) {
      judge.deny(problem.rule, `\`${shown(command)}\`: the patch ${problem.reason}`);
      return true;
    }
  }
  return false;
}
