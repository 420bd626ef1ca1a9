import { dirname, join } from 'node:path';
import { absolutePath, writeProblem } from '../path-rules.js';
import { realPath } from '../policy.js';
import { isWithin } from '../sensitive.js';
import type { Judge, SimpleCommand } from './analyze.js';
import {
  checkRead,
  checkWrite,
  hasFlag,
  shown,
  splitArgs,
  valueOf,
  type SplitArgs,
} from './args.js';
import type { CommandRule } from './command-rule.js';
import { checkProtectedUnder } from './protected-deletes.js';
import { tar } from './tar.js';
import { checkTree } from './tree-reads.js';
import { globTest, type TreeFilter } from './tree-walk.js';
import type { Arg } from './words.js';

/**
 * Commands that write, move or delete files, checked operand by operand: deletes and writes
 * only inside the project (or the writable folders), sources of copies not secrets.
 */

const deleteAll: CommandRule = (command, judge) => {
  const split = splitArgs(command.args);
  for (const operand of split.operands) checkWrite(judge, command, operand, 'delete');
};

const writeAll =
  (valueOptions: string[] = []): CommandRule =>
  (command, judge) => {
    const split = splitArgs(command.args, valueOptions);
    for (const operand of split.operands) checkWrite(judge, command, operand, 'write');
  };

/** cp/mv/install/ln/rsync: the last operand (or `-t DIR`) is written; the others are read. */
const copyLike =
  (sourceAccess: 'read' | 'delete', valueOptions: string[] = []): CommandRule =>
  (command, judge) => {
    const split = splitArgs(command.args, [
      '-t',
      '--target-directory',
      '-S',
      '--suffix',
      ...valueOptions,
    ]);
    const targetDir = [
      ...(split.values.get('-t') ?? []),
      ...(split.values.get('--target-directory') ?? []),
    ];
    const noTargetDir = hasFlag(split, 'T', '--no-target-directory');
    const sources = targetDir.length > 0 ? split.operands : split.operands.slice(0, -1);
    const targets = targetDir.length > 0 ? targetDir : split.operands.slice(-1);
    if (
      split.operands.length === 1 &&
      targetDir.length === 0 &&
      !noTargetDir &&
      command.name === 'ln'
    ) {
      // `ln -s /x` links into the working directory.
      checkWrite(judge, command, { dynamic: false, value: '.', glob: false }, 'write');
    }
    for (const target of targets) checkWrite(judge, command, target, 'write');
    for (const source of sources) {
      if (isRemote(source)) continue;
      if (sourceAccess === 'delete') checkWrite(judge, command, source, 'delete');
      checkRead(judge, command, source);
    }
    if (command.name === 'ln') checkLinkTargets(command, judge, split, sources, targets);
  };

/** `host:path` and `user@host:path` (rsync, scp) are not local files. */
function isRemote(arg: Arg): boolean {
  return !arg.dynamic && /^[^/]*[^/\\]:/.test(arg.value) && !arg.value.startsWith('/');
}

/** A link pointing outside the project turns later writes "inside" it into writes outside. */
function checkLinkTargets(
  command: SimpleCommand,
  judge: Judge,
  split: SplitArgs,
  sources: Arg[],
  targets: Arg[],
): void {
  const symbolic = hasFlag(split, 's', '--symbolic');
  const linkDir = valueOf(targets[0]);
  for (const source of sources) {
    const value = valueOf(source);
    if (value === undefined) {
      checkWrite(judge, command, source, 'write');
      continue;
    }
    const base =
      symbolic && linkDir !== undefined ? absolutePath(linkDir, command.cwd) : command.cwd;
    const from =
      symbolic && base !== undefined && sources.length === 1 && !isDirTarget(linkDir)
        ? dirname(base)
        : base;
    const path = absolutePath(value, from);
    if (path === undefined) {
      checkWrite(judge, command, source, 'write');
      continue;
    }
    const problem = writeProblem(path, 'write', judge.policy);
    if (problem !== undefined) {
      judge.deny(
        'link-outside-project',
        `\`${shown(command)}\` links to ${path}; a link out of the project lets later writes escape it`,
      );
    }
  }
}

function isDirTarget(value: string | undefined): boolean {
  return value === undefined || value.endsWith('/') || value === '.' || value === '..';
}

/** chmod/chown/chgrp: the first operand is the mode or owner (unless --reference). */
const modeThenFiles: CommandRule = (command, judge) => {
  const split = splitArgs(command.args);
  const reference = split.options.some(
    (option) => !option.dynamic && option.value.startsWith('--reference'),
  );
  const files = reference ? split.operands : split.operands.slice(1);
  if (command.name === 'chmod') {
    const mode = valueOf(split.operands[0]) ?? '';
    if (mode.replace(/^[0-7]+$/, '').includes('s') || /^[0-7]?[4-7][0-7]{3}$/.test(mode)) {
      judge.deny(
        'privilege-escalation',
        `\`${shown(command)}\` sets a set-user-ID or set-group-ID bit`,
      );
      return;
    }
  }
  for (const file of files) checkWrite(judge, command, file, 'write');
};

const dd: CommandRule = (command, judge) => {
  for (const arg of command.args) {
    const value = valueOf(arg);
    if (value?.startsWith('of=') === true)
      checkWrite(judge, command, { dynamic: false, value: value.slice(3), glob: false }, 'write');
    if (value?.startsWith('if=') === true)
      checkRead(judge, command, { dynamic: false, value: value.slice(3), glob: false });
  }
};

/** sed -i edits its files; GNU sed's `e` command and `s///e` run shell commands. */
const sed: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, ['-e', '--expression', '-f', '--file', '-l', '-E']);
  const scripts = [...(split.values.get('-e') ?? []), ...(split.values.get('--expression') ?? [])];
  const operands = [...split.operands];
  if (scripts.length === 0 && !split.values.has('-f') && !split.values.has('--file')) {
    const first = operands.shift();
    if (first !== undefined) scripts.push(first);
  }
  for (const script of scripts) {
    const text = valueOf(script);
    if (
      text !== undefined &&
      /(^|[;\n{}])\s*([0-9$,~!]+|\/[^/]*\/[0-9$,!]*)?\s*e(\s|;|$)|s(.).*\4.*\4[gpIiMm0-9w]*e/.test(
        text,
      )
    ) {
      judge.deny(
        'interpreter-shell-out',
        `\`${shown(command)}\`: sed's e command runs shell commands`,
      );
      return;
    }
    if (text !== undefined && /(^|[;\n}]\s*)[wW]\s+\S|\/[gpIiMm0-9]*w\s+\S/.test(text)) {
      const file = /[wW]\s+(\S+)\s*$/.exec(text)?.[1];
      if (file !== undefined)
        checkWrite(judge, command, { dynamic: false, value: file, glob: false }, 'write');
    }
  }
  const inPlace = split.options.some(
    (option) => !option.dynamic && /^(-[a-zA-Z]*i|--in-place)/.test(option.value),
  );
  for (const file of operands) {
    if (inPlace) checkWrite(judge, command, file, 'write');
    checkRead(judge, command, file);
  }
};

/** find: the roots bound what -delete and -exec reach; `{}` stands for a path under a root. */
const find: CommandRule = (command, judge) => {
  const { args } = command;
  const start = args.findIndex((arg) => arg.dynamic || /^[-(!]/.test(arg.value));
  const rootArgs = args
    .slice(0, start < 0 ? args.length : start)
    .filter((arg) => arg.dynamic || !/^-[HLP]$/.test(arg.value));
  const roots: Arg[] =
    rootArgs.length > 0 ? rootArgs : [{ dynamic: false, value: '.', glob: false }];
  const expression = start < 0 ? [] : args.slice(start);
  for (const root of roots) checkRead(judge, command, root);
  const tests = new FindTests(args.slice(0, start < 0 ? 0 : start));
  for (let i = 0; i < expression.length; i++) {
    const value = valueOf(expression[i]);
    tests.see(value, expression[i + 1]);
    if (value === '-delete')
      for (const root of roots) {
        checkRootHoldsProject(judge, command, root);
        checkProtectedUnder(judge, command, root, tests.filter(root));
        checkWrite(judge, command, under(root), 'delete');
      }
    if (value === '-fprint' || value === '-fprint0' || value === '-fprintf' || value === '-fls') {
      const file = expression[i + 1];
      if (file !== undefined) checkWrite(judge, command, file, 'write');
    }
    if (value === '-exec' || value === '-execdir' || value === '-ok' || value === '-okdir') {
      const end = expression.findIndex(
        (arg, k) => k > i && (valueOf(arg) === ';' || valueOf(arg) === '+'),
      );
      const inner = expression.slice(i + 1, end < 0 ? expression.length : end);
      i = end < 0 ? expression.length : end;
      const [name, ...rest] = inner;
      if (name === undefined) continue;
      if (name.dynamic) {
        judge.deny(
          'dynamic-command',
          `\`${shown(command)}\` runs \`${name.text}\`, known only when it runs`,
        );
        continue;
      }
      const base = name.value.slice(name.value.lastIndexOf('/') + 1);
      if (DELETERS.has(base)) for (const root of roots) checkRootHoldsProject(judge, command, root);
      if (!NO_CONTENT.has(base) && rest.some((arg) => valueOf(arg)?.includes('{}') === true))
        for (const root of roots) checkTree(judge, command, root, tests.filter(root));
      for (const root of roots) {
        const replaced = rest.map((arg) =>
          valueOf(arg)?.includes('{}') === true ? under(root) : arg,
        );
        const path = name.value;
        judge.command({
          ...command,
          path,
          name: path.slice(path.lastIndexOf('/') + 1),
          args: replaced,
          piped: false,
          stdin: undefined,
        });
      }
    }
  }
};

const DELETERS = new Set(['rm', 'rmdir', 'unlink', 'shred', 'trash', 'rimraf']);

/** Commands that, handed a found file, do not show or send what is in it. */
const NO_CONTENT = new Set([
  ...DELETERS,
  'ls',
  'stat',
  'file',
  'wc',
  'du',
  'touch',
  'chmod',
  'chown',
  'chgrp',
  'mkdir',
  'echo',
  'printf',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'test',
  '[',
  'md5sum',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'b2sum',
  'cksum',
]);

/**
 * The tests before a find `-exec` that narrow which files reach it: `-name`, `-iname`, `-path`
 * (all of them must hold) and `-maxdepth`. With `-o`, `!` or `,` the logic is not followed and
 * every file counts as reaching it.
 */
class FindTests {
  private readonly names: ((name: string, path: string) => boolean)[] = [];
  private maxDepth: number | undefined;
  private complex = false;
  private readonly follow: boolean;

  constructor(before: readonly Arg[]) {
    this.follow = before.some((arg) => valueOf(arg) === '-L');
  }

  see(value: string | undefined, next: Arg | undefined): void {
    const operand = valueOf(next);
    if (value === undefined || /^(-o|-or|!|-not|,|\(|\))$/.test(value)) this.complex = true;
    else if (value === '-maxdepth') this.maxDepth = Number(operand);
    else if (operand === undefined) return;
    else if (value === '-name') this.names.push(globTest(operand));
    else if (value === '-iname') this.names.push(lower(globTest(operand.toLowerCase())));
    else if (value === '-path' || value === '-wholename')
      this.names.push(pathTest(globTest(operand, true)));
  }

  filter(root: Arg): TreeFilter {
    const prefix = (valueOf(root) ?? '.').replace(/\/+$/, '');
    const names = this.complex ? [] : [...this.names];
    return {
      hidden: true,
      follow: this.follow,
      ...(this.maxDepth !== undefined && Number.isInteger(this.maxDepth)
        ? { maxDepth: this.maxDepth }
        : {}),
      skipsFile: (name, relative) => names.some((test) => !test(name, `${prefix}/${relative}`)),
    };
  }
}

const lower =
  (test: (text: string) => boolean) =>
  (name: string): boolean =>
    test(name.toLowerCase());
const pathTest =
  (test: (text: string) => boolean) =>
  (_name: string, path: string): boolean =>
    test(path);

/** `find .. -delete`: a root holding the project reaches the project itself and its parents. */
function checkRootHoldsProject(judge: Judge, command: SimpleCommand, root: Arg): void {
  if (root.dynamic) return; // checkWrite refuses it
  const path = absolutePath(root.value, command.cwd);
  if (path === undefined) return;
  const real = realPath(path);
  const { projectRoot } = judge.policy;
  if (real !== projectRoot && isWithin(projectRoot, real))
    judge.deny(
      'outside-project',
      `\`${shown(command)}\` deletes under ${real}, which holds the whole project ${projectRoot}`,
    );
}

/** A path strictly inside `root` (what find hands to -exec and -delete). */
function under(root: Arg): Arg {
  if (root.dynamic) return root;
  return { dynamic: false, value: join(root.value, '\u2026found'), glob: false };
}

const unzip: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, ['-d', '-x']);
  for (const dir of split.values.get('-d') ?? []) checkWrite(judge, command, dir, 'write');
  for (const operand of split.operands) checkRead(judge, command, operand);
};

/** Options whose value names a file written (`-o FILE`): sort, curl, wget, gcc and friends. */
const outputOption =
  (options: string[], valueOptions: string[] = []): CommandRule =>
  (command, judge) => {
    const split = splitArgs(command.args, [...options, ...valueOptions]);
    for (const option of options)
      for (const file of split.values.get(option) ?? []) checkWrite(judge, command, file, 'write');
  };

export const FILE_RULES: Readonly<Record<string, CommandRule>> = {
  rm: deleteAll,
  rmdir: deleteAll,
  unlink: deleteAll,
  shred: deleteAll,
  srm: deleteAll,
  trash: deleteAll,
  'trash-put': deleteAll,
  rimraf: deleteAll,
  del: deleteAll,
  cp: copyLike('read'),
  mv: copyLike('delete'),
  install: copyLike('read', ['-m', '--mode', '-o', '--owner', '-g', '--group']),
  ln: copyLike('read'),
  rsync: copyLike('read', ['-e', '--rsh', '--exclude', '--include', '--filter']),
  scp: copyLike('read', ['-P', '-i', '-o', '-F', '-c', '-l']),
  tee: writeAll(),
  touch: writeAll(['-d', '--date', '-r', '--reference', '-t']),
  mkdir: writeAll(['-m', '--mode']),
  mkfifo: writeAll(['-m', '--mode']),
  truncate: writeAll(['-s', '--size', '-r', '--reference']),
  chmod: modeThenFiles,
  chown: modeThenFiles,
  chgrp: modeThenFiles,
  dd,
  sed,
  find,
  tar,
  unzip,
  sort: outputOption(['-o', '--output'], ['-k', '-t', '-T', '-S']),
  gcc: outputOption(['-o']),
  cc: outputOption(['-o']),
  'g++': outputOption(['-o']),
  clang: outputOption(['-o']),
};
