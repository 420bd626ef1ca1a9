import { basename, dirname, join } from 'node:path';
import {
  absolutePath,
  readProblem,
  recordWrite,
  writeProblem,
  type Access,
} from '../path-rules.js';
import { globSensitiveRule } from '../sensitive.js';
import type { Judge, SimpleCommand } from './analyze.js';
import { globDeleteProblem } from './protected-deletes.js';
import type { Arg, StaticArg } from './words.js';

/** Helpers the command rules share: option parsing and the path checks on arguments. */

export interface SplitArgs {
  options: Arg[];
  operands: Arg[];
  /** Values of options that take one (`-t DIR`, `--output=FILE`), by option name. */
  values: Map<string, Arg[]>;
  /** The letters of the short options given, without the values glued to them (`-C/usr`: C). */
  letters: string;
}

/**
 * Splits arguments GNU-style: `--` ends options; `-xyz` is a cluster of short options unless it
 * is one that takes a value (`-tDIR` or `-t DIR`); `--name=value` and `--name value`.
 */
export function splitArgs(args: readonly Arg[], withValue: readonly string[] = []): SplitArgs {
  const options: Arg[] = [];
  const operands: Arg[] = [];
  const values = new Map<string, Arg[]>();
  let letters = '';
  const add = (name: string, value: Arg) => {
    values.set(name, [...(values.get(name) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) continue;
    if (arg.dynamic || !arg.value.startsWith('-') || arg.value === '-') {
      operands.push(arg);
      continue;
    }
    if (arg.value === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    options.push(arg);
    const long = /^(--[^=]+)=(.*)$/s.exec(arg.value);
    if (long !== null) {
      add(long[1] ?? '', { ...arg, value: long[2] ?? '' });
      continue;
    }
    if (withValue.includes(arg.value)) {
      if (!arg.value.startsWith('--')) letters += arg.value.slice(1);
      const next = args[i + 1];
      if (next !== undefined) add(arg.value, next);
      i += 1;
      continue;
    }
    if (!arg.value.startsWith('--')) {
      const cluster = arg.value.slice(1);
      const at = Array.from({ length: cluster.length }, (_, k) => cluster.charAt(k)).findIndex(
        (flag) => withValue.includes(`-${flag}`),
      );
      letters += at >= 0 ? cluster.slice(0, at + 1) : cluster;
      if (at >= 0) {
        const flag = `-${cluster[at] ?? ''}`;
        const rest = cluster.slice(at + 1);
        if (rest !== '') add(flag, { ...arg, value: rest });
        else {
          const next = args[i + 1];
          if (next !== undefined) add(flag, next);
          i += 1;
        }
      }
    }
  }
  return { options, operands, values, letters };
}

/** Whether a short flag (`r`) or a long option (`--recursive`) was given. */
export function hasFlag(split: SplitArgs, short: string, long?: string): boolean {
  return (
    split.letters.includes(short) ||
    (long !== undefined && split.options.some((option) => !option.dynamic && option.value === long))
  );
}

export function shown(command: SimpleCommand): string {
  const text = command.text.replace(/\s+/g, ' ').trim();
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** A write or delete of `arg` by `command`: denied outside the writable places. */
export function checkWrite(judge: Judge, command: SimpleCommand, arg: Arg, access: Access): void {
  const verb = access === 'delete' ? 'delete' : 'write';
  if (arg.dynamic) {
    judge.deny(
      'dynamic-path',
      `\`${shown(command)}\`: cannot tell what \`${arg.text}\` is before it runs, so this ${verb} is refused; write the path literally`,
    );
    return;
  }
  const path = absolutePath(arg.value, command.cwd);
  if (path === undefined) {
    judge.deny(
      'unknown-cwd',
      `\`${shown(command)}\`: the working directory after \`cd\` is unknown, so the relative path ${arg.value} cannot be checked; use an absolute path`,
    );
    return;
  }
  if (arg.glob) {
    checkGlobWrite(judge, command, path, access);
    return;
  }
  if (access === 'write') recordWrite(judge.policy, path, command.name);
  const problem = writeProblem(path, access, judge.policy);
  if (problem !== undefined) judge.deny(problem.rule, `\`${shown(command)}\` ${problem.reason}`);
}

/** `rm -rf src/*.o`: what matches lies inside the pattern's folder; `rm -rf *` at the root is all of it. */
function checkGlobWrite(judge: Judge, command: SimpleCommand, pattern: string, access: Access) {
  let folder = dirname(pattern);
  while (/[*?[]/.test(folder)) folder = dirname(folder);
  const name = basename(pattern);
  if (
    access === 'delete' &&
    folder === judge.policy.projectRoot &&
    /^\.?\*+$/.test(name) &&
    dirname(pattern) === folder
  ) {
    judge.deny(
      'project-root',
      `\`${shown(command)}\` deletes everything in the project root; name what to delete`,
    );
    return;
  }
  const matched = access === 'delete' ? globDeleteProblem(pattern, judge) : undefined;
  if (matched !== undefined) {
    judge.deny(
      'protected-path',
      `\`${shown(command)}\` ${matched}: ralph and git control files cannot be changed by the agent`,
    );
    return;
  }
  const problem = writeProblem(join(folder, '\u0000glob'), access, judge.policy);
  if (problem !== undefined) {
    judge.deny(
      problem.rule,
      `\`${shown(command)}\` ${problem.reason.replace('/\u0000glob', '/…')}`,
    );
    return;
  }
  checkRead(judge, command, { dynamic: false, value: pattern, glob: true });
}

/** A read of `arg`: only secrets are refused. */
export function checkRead(judge: Judge, command: SimpleCommand, arg: Arg): void {
  if (arg.dynamic || arg.value === '' || arg.value === '-') return;
  const path = absolutePath(arg.value, command.cwd ?? judge.policy.projectRoot);
  if (path === undefined) return;
  if (arg.glob) {
    const rule = globSensitiveRule(path, judge.policy);
    if (rule !== undefined)
      judge.deny(
        'sensitive-file',
        `\`${shown(command)}\` may match a secret (${rule}); the guard keeps secrets out of reach`,
      );
    return;
  }
  const problem = readProblem(path, judge.policy);
  if (problem !== undefined) judge.deny(problem.rule, `\`${shown(command)}\` ${problem.reason}`);
}

/** Options whose value is a name pattern that leaves files out or in, not a file read. */
const PATTERN_OPTION = /^--(exclude|include|exclude-dir|include-dir|ignore|ignore-dir|glob|iglob)=/;

/** Every argument that may be a file, including option values (`--file=.env`, `@.env`). */
export function checkReadsOfAll(judge: Judge, command: SimpleCommand, args: readonly Arg[]): void {
  for (const arg of args) {
    if (arg.dynamic || PATTERN_OPTION.test(arg.value)) continue;
    const value = /^--?[A-Za-z][\w-]*=(.*)$/s.exec(arg.value)?.[1] ?? arg.value;
    const file = value.startsWith('@') ? value.slice(1) : value;
    checkRead(judge, command, { ...arg, value: file });
  }
}

export const isStatic = (arg: Arg | undefined): arg is StaticArg =>
  arg !== undefined && !arg.dynamic;

export const valueOf = (arg: Arg | undefined): string | undefined =>
  isStatic(arg) ? arg.value : undefined;

/**
 * GNU programs take a long option by any unambiguous prefix (`tar --to-com=CMD`): each such
 * prefix of a name in `names` is written out in full, the first name winning a tie, so the
 * options that matter (listed first) are not missed however they are shortened.
 */
export function expandLongOptions(args: readonly Arg[], names: readonly string[]): Arg[] {
  return args.map((arg) => {
    if (arg.dynamic || !arg.value.startsWith('--') || arg.value === '--') return arg;
    const eq = arg.value.indexOf('=');
    const name = eq < 0 ? arg.value : arg.value.slice(0, eq);
    if (names.includes(name)) return arg;
    const full = names.find((candidate) => candidate.startsWith(name));
    return full === undefined ? arg : { ...arg, value: full + arg.value.slice(name.length) };
  });
}
