import { absolutePath } from '../path-rules.js';
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
import { describeTreeSecret, findTreeSecret, globTest, type TreeFilter } from './tree-walk.js';
import type { Arg } from './words.js';

/**
 * Commands that read every file under a folder: `grep -r`, `rg`, `ag`, `zip -r` (tar's archive
 * creation and find's `-exec` use `checkTree` too). Each folder they reach must hold no secret,
 * unless their own options leave every secret out (`grep --exclude=.env`, `rg -g '!.env'`).
 */

/** Denies when `root` is a folder whose tree (as the filter sees it) holds a secret. */
export function checkTree(
  judge: Judge,
  command: SimpleCommand,
  root: Arg,
  filter: TreeFilter,
): void {
  if (root.dynamic || root.value === '-') return; // a dynamic root: checkDynamicReads' job
  const path = absolutePath(root.value, command.cwd ?? judge.policy.projectRoot);
  if (path === undefined) return;
  const found = findTreeSecret(path, judge.policy, filter);
  if (found === undefined) return;
  judge.deny(
    'sensitive-file',
    `\`${shown(command)}\` reads the whole tree under ${root.value} and ${describeTreeSecret(found)}; leave it out (an exclude option) or name the folders to read`,
  );
}

const anyOf =
  (tests: ((text: string) => boolean)[]) =>
  (text: string): boolean =>
    tests.some((test) => test(text));

const valuesOf = (split: SplitArgs, names: string[]): string[] =>
  names.flatMap((name) => (split.values.get(name) ?? []).flatMap((arg) => valueOf(arg) ?? []));

const GREP_VALUES = [
  '-e',
  '--regexp',
  '-f',
  '--file',
  '-d',
  '--directories',
  '-D',
  '--devices',
  '-m',
  '--max-count',
  '-A',
  '-B',
  '-C',
  '--include',
  '--exclude',
  '--exclude-dir',
  '--exclude-from',
  '--label',
  '--color',
  '--colour',
  '--binary-files',
];

/** `grep -r PATTERN [FOLDER…]`: with no folder, the working directory. */
const grep: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, GREP_VALUES);
  const recurse = valuesOf(split, ['-d', '--directories']).includes('recurse');
  const follow = hasFlag(split, 'R', '--dereference-recursive');
  if (!recurse && !follow && !hasFlag(split, 'r', '--recursive')) return;
  const explicit = split.values.has('-e') || split.values.has('--regexp') || split.values.has('-f');
  const roots = explicit || split.values.has('--file') ? split.operands : split.operands.slice(1);
  const includes = valuesOf(split, ['--include']).map((glob) => globTest(glob));
  const excludes = valuesOf(split, ['--exclude']).map((glob) => globTest(glob));
  const excludeDirs = valuesOf(split, ['--exclude-dir']).map((glob) => globTest(glob));
  const filter: TreeFilter = {
    hidden: true,
    follow,
    skipsFile: (name) => anyOf(excludes)(name) || (includes.length > 0 && !anyOf(includes)(name)),
    skipsDir: (name) => anyOf(excludeDirs)(name),
  };
  for (const root of roots.length > 0 ? roots : [dot]) {
    // A search of the project is ordinary work (it may print a line of .env, which the sandbox
    // hides); a search of the home folder or beyond is walked for secrets.
    const path = root.dynamic ? undefined : absolutePath(root.value, command.cwd);
    if (path !== undefined && isWithin(realPath(path), judge.policy.projectRoot)) {
      checkRead(judge, command, root);
      continue;
    }
    checkTree(judge, command, root, filter);
  }
};

const dot: Arg = { dynamic: false, value: '.', glob: false };

const RG_VALUES = [
  '-e',
  '--regexp',
  '-f',
  '--file',
  '-g',
  '--glob',
  '--iglob',
  '-t',
  '--type',
  '-T',
  '--type-not',
  '--type-add',
  '-m',
  '--max-count',
  '-A',
  '-B',
  '-C',
  '--context',
  '-d',
  '--max-depth',
  '--maxdepth',
  '-j',
  '--threads',
  '-M',
  '--max-columns',
  '-E',
  '--encoding',
  '-r',
  '--replace',
  '--pre',
  '--pre-glob',
  '--sort',
  '--sortr',
  '--color',
  '--colors',
  '--ignore-file',
  '--max-filesize',
  '--path-separator',
];

/**
 * ripgrep searches the working directory by default, skipping hidden files (`.env`) unless
 * `--hidden`, `-.` or `-uu`; `-g '!GLOB'` leaves files out and `-g GLOB` keeps only those.
 * `--pre CMD` runs CMD on every file. Ignore files are not read: a secret not hidden counts.
 */
const rg: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, RG_VALUES);
  for (const pre of split.values.get('--pre') ?? [])
    judge.shell(valueOf(pre), command.cwd, command.depth + 1, 'rg --pre');
  if (split.options.some((option) => valueOf(option) === '--files')) return; // names only
  const unrestricted = split.options
    .flatMap((option) => (/^-[a-zA-Z]*$/.test(valueOf(option) ?? '') ? [valueOf(option)] : []))
    .join('')
    .replace(/[^u]/g, '').length;
  const hidden =
    unrestricted >= 2 ||
    hasFlag(split, '.', '--hidden') ||
    split.options.filter((option) => valueOf(option) === '--unrestricted').length >= 2;
  const globs = valuesOf(split, ['-g', '--glob', '--iglob']);
  const explicit = ['-e', '--regexp', '-f', '--file'].some((name) => split.values.has(name));
  const depth = Number(valuesOf(split, ['-d', '--max-depth', '--maxdepth']).at(-1) ?? NaN);
  const filter: TreeFilter = {
    hidden,
    follow: hasFlag(split, 'L', '--follow'),
    ...(Number.isInteger(depth) ? { maxDepth: depth } : {}),
    ...globFilter(globs),
  };
  const roots = explicit ? split.operands : split.operands.slice(1);
  for (const root of roots.length > 0 ? roots : [dot]) checkTree(judge, command, root, filter);
};

/** rg's globs, gitignore style: a glob without `/` matches a name at any depth. */
function globFilter(globs: string[]): Pick<TreeFilter, 'skipsFile' | 'skipsDir'> {
  const test = (glob: string) => {
    const bare = glob.replace(/^\//, '');
    const match = globTest(bare.replace(/\/$/, ''));
    return (name: string, relative: string) => match(bare.includes('/') ? relative : name);
  };
  const excludes = globs.filter((glob) => glob.startsWith('!')).map((glob) => test(glob.slice(1)));
  const includes = globs.filter((glob) => !glob.startsWith('!')).map(test);
  const excluded = (name: string, relative: string) =>
    excludes.some((exclude) => exclude(name, relative));
  return {
    skipsFile: (name, relative) =>
      excluded(name, relative) ||
      (includes.length > 0 && !includes.some((include) => include(name, relative))),
    skipsDir: excluded,
  };
}

const AG_VALUES = ['--ignore', '--ignore-dir', '-G', '--file-search-regex', '--depth', '-m', '-A'];

/** The silver searcher: like rg, hidden files only with `-u`/`--unrestricted`/`--hidden`. */
const ag: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, [...AG_VALUES, '-B', '-C']);
  const hidden =
    hasFlag(split, 'u', '--unrestricted') ||
    split.options.some((option) => valueOf(option) === '--hidden');
  const ignores = valuesOf(split, ['--ignore', '--ignore-dir']).map((glob) => globTest(glob));
  const filter: TreeFilter = {
    hidden,
    follow: hasFlag(split, 'f', '--follow'),
    skipsFile: (name) => anyOf(ignores)(name),
    skipsDir: (name) => anyOf(ignores)(name),
  };
  const roots = split.operands.slice(1);
  for (const root of roots.length > 0 ? roots : [dot]) checkTree(judge, command, root, filter);
};

/**
 * `zip [opts] ARCHIVE FILES…`: the archive is written, the files read (whole trees with `-r`);
 * `-x PATTERN…` leaves files out and `-i PATTERN…` keeps only those (every word up to the next
 * option); `-m` deletes the files once archived; `-TT CMD` runs CMD.
 */
const zip: CommandRule = (command, judge) => {
  const { args } = command;
  const operands: Arg[] = [];
  const patterns = {
    x: [] as ((text: string) => boolean)[],
    i: [] as ((text: string) => boolean)[],
  };
  let list: 'x' | 'i' | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = valueOf(arg);
    if (arg === undefined) break;
    if (value === undefined || !value.startsWith('-') || value === '-') {
      if (list !== undefined && value !== undefined) patterns[list].push(globTest(value, true));
      else operands.push(arg);
      continue;
    }
    list =
      value === '-x' || value === '--exclude'
        ? 'x'
        : value === '-i' || value === '--include'
          ? 'i'
          : undefined;
    if (value === '-TT' || value === '--unzip-command') {
      judge.shell(valueOf(args[i + 1]), command.cwd, command.depth + 1, 'zip -TT');
      i += 1;
    } else if (value.startsWith('--unzip-command=')) {
      judge.shell(value.slice(value.indexOf('=') + 1), command.cwd, command.depth + 1, 'zip -TT');
    } else if (ZIP_VALUES.includes(value)) {
      if (value === '-O' || value === '--output-file') {
        const out = args[i + 1];
        if (out !== undefined) checkWrite(judge, command, out, 'write');
      }
      i += 1;
    }
  }
  const [archive, ...files] = operands;
  if (archive !== undefined) checkWrite(judge, command, archive, 'write');
  const recurse = args.some((arg) =>
    /^(-[a-zA-Z]*[rR][a-zA-Z]*|--recurse-\w+)$/.test(valueOf(arg) ?? ''),
  );
  const filter: TreeFilter = {
    hidden: true,
    follow: false,
    skipsFile: (name, relative) => {
      const matches = (test: (text: string) => boolean) => test(name) || test(relative);
      return patterns.x.some(matches) || (patterns.i.length > 0 && !patterns.i.some(matches));
    },
  };
  const moves = args.some((arg) => /^(-[a-zA-Z]*m[a-zA-Z]*|--move)$/.test(valueOf(arg) ?? ''));
  for (const file of files) {
    checkRead(judge, command, file);
    if (moves) checkWrite(judge, command, file, 'delete');
    if (recurse) checkTree(judge, command, file, filter);
  }
};

const ZIP_VALUES = ['-b', '-n', '-t', '-tt', '-O', '--output-file', '-P', '--password', '-Z'];

export const TREE_RULES: Readonly<Record<string, CommandRule>> = {
  grep,
  egrep: grep,
  fgrep: grep,
  rg,
  ag,
  zip,
};
