import { isAbsolute, join, resolve } from 'node:path';
import { realPath } from '../policy.js';
import { isWithin } from '../sensitive.js';
import type { Judge, SimpleCommand } from './analyze.js';
import { checkRead, checkReadsOfAll, checkWrite, shown, splitArgs, valueOf } from './args.js';
import type { CommandRule } from './command-rule.js';
import { judgeGitChange } from './git-changes.js';
import type { Arg } from './words.js';

/**
 * git: settings whose values are commands (a way around the guard), reads of secrets through
 * `git show HEAD:.env`, and writes outside the project — through `-C`, `--git-dir`,
 * `--work-tree`, or the folder a subcommand creates (`clone`, `init`, `worktree add`).
 */

/** git settings whose values are commands git runs: a way around the guard. */
const GIT_COMMAND_KEYS =
  /^(core\.(hookspath|fsmonitor|sshcommand|pager|editor|askpass|gitproxy)|sequence\.editor|alias\..*|diff\.external|diff\..*\.(command|textconv)|merge\..*\.driver|filter\..*\.(clean|smudge|process)|credential\.helper|gpg\.(program|.*\.program)|include\.path|includeif\..*|uploadpack\.packobjectshook|pager\..*|interactive\.difffilter|protocol\.ext\.allow)$/i;

const under = (cwd: string | undefined, dir: string) =>
  isAbsolute(dir) ? resolve(dir) : cwd === undefined ? undefined : resolve(cwd, dir);

/** What the options before the subcommand say: where git runs and which repository it uses. */
interface GitPlace {
  /** Index of the subcommand in the arguments. */
  index: number;
  cwd: string | undefined;
  tree: Arg | undefined;
  gitDir: Arg | undefined;
  /** `-C` folders, each relative to the one before. */
  chdirs: Arg[];
}

/** Parses the global options; undefined after a denial (a setting that runs a command). */
function globalOptions(command: SimpleCommand, judge: Judge): GitPlace | undefined {
  const { args } = command;
  const place: GitPlace = {
    index: 0,
    cwd: command.cwd,
    tree: undefined,
    gitDir: undefined,
    chdirs: [],
  };
  for (; place.index < args.length; place.index++) {
    const value = valueOf(args[place.index]);
    if (!value?.startsWith('-')) break;
    const next = args[place.index + 1];
    if (value === '-c') {
      const setting = valueOf(next) ?? '';
      if (GIT_COMMAND_KEYS.test(setting.split('=')[0] ?? '')) {
        gitDeny(command, judge, setting);
        return undefined;
      }
      place.index += 1;
    } else if (value === '-C' || value === '--git-dir' || value === '--work-tree') {
      if (value === '-C') {
        place.cwd = next === undefined || next.dynamic ? undefined : under(place.cwd, next.value);
        if (next !== undefined) place.chdirs.push(next);
      } else if (value === '--work-tree') place.tree = next;
      else place.gitDir = next;
      place.index += 1;
    } else if (/^--(git-dir|work-tree)=/.test(value)) {
      const dir: Arg = { dynamic: false, value: value.replace(/^--[a-z-]+=/, ''), glob: false };
      if (value.startsWith('--work-tree=')) place.tree = dir;
      else place.gitDir = dir;
    } else if (/^--(exec-path|upload-pack|receive-pack|config-env)/.test(value)) {
      gitDeny(command, judge, value);
      return undefined;
    }
  }
  return place;
}

const git: CommandRule = (command, judge) => {
  const place = globalOptions(command, judge);
  if (place === undefined) return;
  const { args } = command;
  const { cwd, tree } = place;
  const sub = valueOf(args[place.index]);
  const rest = args.slice(place.index + 1);
  if (sub === 'config') {
    gitConfig(command, judge, rest);
    return;
  }
  // `-u` is --upload-pack only for clone and ls-remote (for push it is --set-upstream).
  const upload = sub === 'clone' || sub === 'ls-remote' ? /^-u$/ : /^$/;
  if (
    rest.some((arg) => {
      const value = valueOf(arg) ?? '';
      return /^--(upload-pack|receive-pack|exec)(=|$)/.test(value) || upload.test(value);
    }) &&
    REMOTE_SUBS.has(sub ?? '')
  ) {
    gitDeny(command, judge, 'a remote helper command');
    return;
  }
  const inTree: SimpleCommand = { ...command, cwd };
  if (judgeGitChange(inTree, judge, sub, rest)) return;
  gitRunsCommands(inTree, judge, sub, rest);
  if (sub === 'clean' && hasForce(rest)) {
    gitClean(inTree, judge, tree);
    return;
  }
  if (!readsOnly(sub, rest)) checkPlaces(command, judge, place);
  gitReads(inTree, judge, sub, rest);
  gitCreates(inTree, judge, sub, rest);
};

const REMOTE_SUBS = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'archive']);

/** Options whose value is a shell command git runs, per subcommand. */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rebase: ['--exec', '-x'],
  difftool: ['--extcmd', '-x'],
  'filter-branch': [
    '--env-filter',
    '--tree-filter',
    '--index-filter',
    '--parent-filter',
    '--msg-filter',
    '--commit-filter',
    '--tag-name-filter',
  ],
};

/**
 * Shell code git runs for the agent: `rebase --exec CMD`, `difftool -x CMD`, filter-branch's
 * filters, `submodule foreach CMD`, `bisect run CMD…`; and `diff --output=FILE` writes a file.
 */
function gitRunsCommands(
  command: SimpleCommand,
  judge: Judge,
  sub: string | undefined,
  rest: readonly Arg[],
): void {
  const values = rest.map((arg) => valueOf(arg));
  const options = COMMAND_OPTIONS[sub ?? ''] ?? [];
  values.forEach((value, index) => {
    if (value === undefined) return;
    const [option, inline] = value.split(/=(.*)/s, 2);
    if (option === undefined || !options.includes(option)) return;
    const code = inline ?? values[index + 1];
    judge.shell(code, command.cwd, command.depth + 1, `git ${sub ?? ''} ${option}`);
  });
  const words = values.filter((value) => !value?.startsWith('-'));
  if (sub === 'submodule' && words[0] === 'foreach') {
    const code = words.slice(1);
    judge.shell(
      code.includes(undefined) ? undefined : code.join(' '),
      command.cwd,
      command.depth + 1,
      'git submodule foreach',
    );
  }
  if (sub === 'bisect' && words[0] === 'run') {
    const at = rest.findIndex((arg) => valueOf(arg) === 'run');
    const argv = rest.slice(at + 1);
    const text = argv.map((arg) => (arg.dynamic ? undefined : quoteWord(arg.value)));
    judge.shell(
      text.includes(undefined) ? undefined : text.join(' '),
      command.cwd,
      command.depth + 1,
      'git bisect run',
    );
  }
  for (const value of values) {
    const file = /^--output=(.+)$/s.exec(value ?? '')?.[1];
    if (file !== undefined)
      checkWrite(judge, command, { dynamic: false, value: file, glob: false }, 'write');
  }
}

/** A word as shell text again (bisect run's argv is a command, not a script). */
function quoteWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function gitConfig(command: SimpleCommand, judge: Judge, rest: readonly Arg[]): void {
  const key = rest
    .map((arg) => valueOf(arg))
    .find((value) => value !== undefined && !value.startsWith('-'));
  const writes =
    rest.length > 1 && !rest.some((arg) => /^--(get|list|unset)/.test(valueOf(arg) ?? ''));
  if (key !== undefined && writes && GIT_COMMAND_KEYS.test(key)) {
    gitDeny(command, judge, key);
    return;
  }
  if (rest.some((arg) => valueOf(arg) === '--global' || valueOf(arg) === '--system') && writes)
    judge.deny('outside-project', `\`${shown(command)}\` changes git settings outside the project`);
}

/** Subcommands that only look at a repository: fine on any repository, the project's or not. */
const READ_ONLY = new Set([
  'status',
  'log',
  'diff',
  'show',
  'blame',
  'annotate',
  'grep',
  'ls-files',
  'ls-tree',
  'ls-remote',
  'rev-parse',
  'rev-list',
  'cat-file',
  'describe',
  'shortlog',
  'show-ref',
  'for-each-ref',
  'help',
  'version',
  'whatchanged',
  'name-rev',
  'merge-base',
  'check-ignore',
  'check-attr',
  'count-objects',
  'cherry',
  'range-diff',
  'var',
]);

/** Subcommands that list when given nothing or a listing option, and change things otherwise. */
const LISTING = new Set(['branch', 'tag', 'remote', 'stash', 'worktree', 'notes']);
const LIST_WORDS = new Set([
  'list',
  'show',
  '-l',
  '--list',
  '-v',
  '-vv',
  '-a',
  '-r',
  '--show-current',
]);

function readsOnly(sub: string | undefined, rest: readonly Arg[]): boolean {
  if (sub === undefined || READ_ONLY.has(sub)) return true;
  if (!LISTING.has(sub)) return false;
  const first = rest[0];
  return first === undefined || LIST_WORDS.has(valueOf(first) ?? '');
}

/**
 * A git that changes things, run in another folder (`-C ../x`, `cd ../x && git …`,
 * `--work-tree=../x`, `--git-dir=../x/.git`) writes there: each such folder must be writable
 * (after a `cd` the guard cannot follow, git is let pass: `cd "$(git rev-parse
 * --show-toplevel)"` is common, and a dynamic `-C` is refused instead). Folders inside the
 * project are fine (its own `.git` included: git keeps it up to date on every commit).
 */
function checkPlaces(command: SimpleCommand, judge: Judge, place: GitPlace): void {
  const folders: Arg[] = [...place.chdirs.filter((dir) => dir.dynamic)];
  if (place.cwd !== undefined) folders.push({ dynamic: false, value: place.cwd, glob: false });
  for (const dir of [place.tree, place.gitDir]) if (dir !== undefined) folders.push(dir);
  for (const dir of folders) {
    if (dir.dynamic) {
      checkWrite(judge, command, dir, 'write');
      continue;
    }
    const path = under(place.cwd, dir.value) ?? under(command.cwd, dir.value);
    if (path === undefined || isWithin(realPath(path), judge.policy.projectRoot)) continue;
    checkWrite(
      judge,
      command,
      { dynamic: false, value: join(path, '\u2026found'), glob: false },
      'write',
    );
  }
}

/** Messages and revisions are text; paths after `--` and `git add` operands may be files. */
function gitReads(inTree: SimpleCommand, judge: Judge, sub: string | undefined, rest: Arg[]): void {
  if (sub === 'add' || sub === 'show' || sub === 'cat-file' || sub === 'mv' || sub === 'rm')
    checkReadsOfAll(judge, inTree, splitArgs(rest).operands);
  if (sub === 'show' || sub === 'cat-file' || sub === 'grep' || sub === 'archive') {
    // `git show HEAD:.env`, `git show :.env`: the part after the colon is a path in the tree.
    for (const arg of splitArgs(rest).operands) {
      const path = arg.dynamic ? undefined : /^[^:]*:(.+)$/s.exec(arg.value)?.[1];
      if (path !== undefined)
        checkRead(
          judge,
          { ...inTree, cwd: inTree.cwd ?? judge.policy.projectRoot },
          { dynamic: false, value: path.replace(/^\.\//, ''), glob: false },
        );
    }
  }
  if (sub === 'diff' && rest.some((arg) => valueOf(arg) === '--no-index'))
    checkReadsOfAll(judge, inTree, splitArgs(rest).operands);
}

const CLONE_VALUES = [
  '-b',
  '--branch',
  '-o',
  '--origin',
  '--depth',
  '--reference',
  '-c',
  '--config',
  '--template',
  '--separate-git-dir',
  '-j',
  '--jobs',
  '--filter',
];

/** The folders `clone`, `init` and `worktree` create, move or delete. */
function gitCreates(inTree: SimpleCommand, judge: Judge, sub: string | undefined, rest: Arg[]) {
  const write = (arg: Arg | undefined, access: 'write' | 'delete' = 'write') => {
    if (arg !== undefined) checkWrite(judge, inTree, arg, access);
  };
  if (sub === 'clone' || sub === 'init') {
    const split = splitArgs(rest, CLONE_VALUES);
    for (const dir of split.values.get('--separate-git-dir') ?? []) write(dir);
    write(split.operands[sub === 'clone' ? 1 : 0]);
  }
  if (sub === 'worktree') {
    const [action, ...more] = rest;
    const split = splitArgs(more, ['-b', '-B', '--reason', '--orphan']);
    if (valueOf(action) === 'add') write(split.operands[0]);
    if (valueOf(action) === 'move') write(split.operands[1]);
    if (valueOf(action) === 'remove') write(split.operands[0], 'delete');
  }
}

function gitDeny(command: SimpleCommand, judge: Judge, what: string): void {
  judge.deny(
    'git-runs-command',
    `\`${shown(command)}\` sets ${what}, which makes git run a command the guard cannot check`,
  );
}

function hasForce(rest: readonly Arg[]): boolean {
  return rest.some((arg) => {
    const value = valueOf(arg);
    return value === '--force' || (value !== undefined && /^-[a-zA-Z]*f/.test(value));
  });
}

/** `git clean -f`: deletes untracked files under the work tree (the -C folder or --work-tree). */
function gitClean(command: SimpleCommand, judge: Judge, tree: Arg | undefined): void {
  const root: Arg = tree ?? { dynamic: false, value: command.cwd ?? '.', glob: false };
  if (root.dynamic || command.cwd === undefined) {
    judge.deny(
      'dynamic-path',
      `\`${shown(command)}\`: cannot tell which work tree git cleans before it runs; run it in the project`,
    );
    return;
  }
  const path = realPath(under(command.cwd, root.value) ?? command.cwd);
  const { projectRoot } = judge.policy;
  if (isWithin(path, projectRoot)) return;
  if (isWithin(projectRoot, path)) {
    judge.deny(
      'outside-project',
      `\`${shown(command)}\` deletes untracked files under ${path}, which holds the whole project ${projectRoot}`,
    );
    return;
  }
  checkWrite(
    judge,
    command,
    { dynamic: false, value: join(path, '\u2026found'), glob: false },
    'delete',
  );
}

export { git };
