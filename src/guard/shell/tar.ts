import { absolutePath } from '../path-rules.js';
import type { Judge, SimpleCommand } from './analyze.js';
import {
  checkRead,
  checkWrite,
  expandLongOptions,
  hasFlag,
  shown,
  splitArgs,
  valueOf,
  type SplitArgs,
} from './args.js';
import type { CommandRule } from './command-rule.js';
import { checkTree } from './tree-reads.js';
import { globTest, type TreeFilter } from './tree-walk.js';
import type { Arg } from './words.js';

/**
 * tar: the options that run commands (`--to-command`, `-I`, `--checkpoint-action=exec=`) are
 * judged as shell code; an archive created reads whole trees (no secret in them, unless
 * `--exclude`d); one extracted writes under `-C`; `-P` writes absolute paths.
 */

/** Options whose value is a command tar runs. */
const CODE_OPTIONS = [
  '--to-command',
  '--use-compress-program',
  '-I',
  '--info-script',
  '--new-volume-script',
  '-F',
  '--rsh-command',
  '--rmt-command',
];

/** Long options GNU tar takes abbreviated (`--to-com=`); the ones that run commands first. */
const LONG_OPTIONS = [
  ...CODE_OPTIONS.filter((option) => option.startsWith('--')),
  '--checkpoint-action',
  '--checkpoint',
  '--to-stdout',
  '--totals',
  '--touch',
  '--file',
  '--directory',
  '--files-from',
  '--exclude',
  '--exclude-from',
  '--create',
  '--extract',
  '--append',
  '--update',
  '--get',
  '--absolute-names',
  '--no-recursion',
  '--dereference',
];

const VALUE_OPTIONS = [
  ...CODE_OPTIONS,
  '-f',
  '--file',
  '-C',
  '--directory',
  '-T',
  '--files-from',
  '-X',
  '--exclude-from',
  '--exclude',
  '-b',
  '-g',
  '--listed-incremental',
  '-K',
  '-L',
  '-N',
  '-V',
  '--checkpoint-action',
];

/** Letters that take the next word in the old style (`tar cfC x.tar dir`). */
const OLD_STYLE_VALUES = 'bCfFgIKLNTVX';

/** `tar czf x.tgz dir` → `tar -c -z -f x.tgz dir`: the first word may be bundled letters. */
function oldStyle(args: readonly Arg[]): Arg[] {
  const first = valueOf(args[0]);
  if (first === undefined || !/^[A-Za-z]+$/.test(first)) return [...args];
  const out: Arg[] = [];
  let next = 1;
  for (const letter of first) {
    out.push({ dynamic: false, value: `-${letter}`, glob: false });
    const value = args[next];
    if (OLD_STYLE_VALUES.includes(letter) && value !== undefined) {
      out.push(value);
      next += 1;
    }
  }
  return [...out, ...args.slice(next)];
}

const tar: CommandRule = (command, judge) => {
  const args = expandLongOptions(oldStyle(command.args), LONG_OPTIONS);
  const split = splitArgs(args, VALUE_OPTIONS);
  const option = (name: string) => split.values.get(name) ?? [];
  for (const name of CODE_OPTIONS)
    for (const code of option(name))
      judge.shell(valueOf(code), command.cwd, command.depth + 1, `tar ${name}`);
  for (const action of option('--checkpoint-action')) {
    const exec = valueOf(action)?.match(/^exec=(.*)$/s)?.[1];
    if (exec !== undefined || action.dynamic)
      judge.shell(exec, command.cwd, command.depth + 1, 'tar --checkpoint-action');
  }
  if (hasFlag(split, 'P', '--absolute-names')) {
    judge.deny('tar-exec', `\`${shown(command)}\` lets tar write absolute paths`);
    return;
  }
  const creates =
    ['c', 'r', 'u', 'A'].some((flag) => hasFlag(split, flag)) ||
    hasLong(split, ['--create', '--append', '--update']);
  const dirs = [...option('-C'), ...option('--directory')];
  for (const archive of [...option('-f'), ...option('--file')]) {
    if (creates) checkWrite(judge, command, archive, 'write');
    else checkRead(judge, command, archive);
  }
  // Lists of names to archive or leave out: tar reads them (tar's own arguments are not
  // checked as files by the caller, since `--exclude .env` names what is left out).
  for (const list of [
    ...option('-T'),
    ...option('--files-from'),
    ...option('-X'),
    ...option('--exclude-from'),
  ])
    checkRead(judge, command, list);
  if (!creates) {
    for (const dir of dirs) checkWrite(judge, command, dir, 'write');
    for (const operand of split.operands) checkRead(judge, command, operand);
    return;
  }
  archivedTrees(command, judge, args, split, dirs);
};

function hasLong(split: SplitArgs, names: readonly string[]): boolean {
  return split.options.some((option) => names.includes(valueOf(option) ?? ''));
}

/** What `tar c` archives: each operand, relative to every `-C` folder given, whole trees. */
function archivedTrees(
  command: SimpleCommand,
  judge: Judge,
  args: readonly Arg[],
  split: SplitArgs,
  dirs: Arg[],
): void {
  const excludes = (split.values.get('--exclude') ?? []).flatMap((arg) => {
    const value = valueOf(arg);
    return value === undefined ? [] : [globTest(value.replace(/^\.\//, ''), true)];
  });
  const filter: TreeFilter = {
    hidden: true,
    follow: hasFlag(split, 'h', '--dereference'),
    skipsFile: (name, relative) => excludes.some((test) => test(name) || test(relative)),
    skipsDir: (name, relative) => excludes.some((test) => test(name) || test(relative)),
  };
  const recurse = !hasLong(split, ['--no-recursion']);
  for (const [operand, cwd] of operandFolders(args, split, dirs, command.cwd)) {
    const at: SimpleCommand = { ...command, cwd };
    checkRead(judge, at, operand);
    if (recurse && cwd !== undefined) checkTree(judge, at, operand, filter);
  }
}

/** Each operand with the folder it is taken from: `-C DIR` applies to the operands after it. */
function operandFolders(
  args: readonly Arg[],
  split: SplitArgs,
  dirs: readonly Arg[],
  cwd: string | undefined,
): [Arg, string | undefined][] {
  const operands = new Set(split.operands);
  const dirArgs = new Set(dirs);
  const found: [Arg, string | undefined][] = [];
  let base = cwd;
  for (const arg of args) {
    const inline = valueOf(arg)?.match(/^(?:--directory=|-C)(.+)$/s)?.[1];
    if (operands.has(arg)) found.push([arg, base]);
    else if (dirArgs.has(arg) || inline !== undefined) {
      const dir = inline ?? valueOf(arg);
      base = dir === undefined || base === undefined ? undefined : absolutePath(dir, base);
    }
  }
  return found;
}

export { tar };
