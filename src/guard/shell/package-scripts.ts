import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Judge, SimpleCommand } from './analyze.js';
import { shown, valueOf } from './args.js';
import { recordWrite, writerOf } from '../path-rules.js';
import { judgeScriptText } from './script-files.js';

/**
 * The package.json scripts that `npm test`, `npm run build`, `pnpm lint`, `yarn dev` or a plain
 * `npm install` would run, with their pre- and post- scripts: each is shell code (npm hands it
 * to sh), judged like a command the agent typed. The agent edits package.json as freely as any
 * file, so a script is only as safe as its text at the moment it runs.
 */

export const LIFECYCLE_INSTALL = [
  'preinstall',
  'install',
  'postinstall',
  'prepublish',
  'preprepare',
  'prepare',
  'postprepare',
];

const MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Words that run the project's install scripts when no package is named. */
const INSTALLS = new Set(['install', 'i', 'ci', 'clean-install', 'isntall']);
/** npm's aliases for the scripts it runs by a command of their own. */
const SCRIPT_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  test: ['test'],
  t: ['test'],
  tst: ['test'],
  start: ['start'],
  stop: ['stop'],
  restart: ['stop', 'restart', 'start'],
  // Lifecycle scripts of commands that are not "run a script" (each with its pre/post).
  pack: ['pack', 'prepack', 'prepare'],
  publish: ['publish', 'prepublishOnly', 'prepack', 'prepare'],
  version: ['version'],
  it: ['install', 'test'],
  'install-test': ['install', 'test'],
  cit: ['install', 'test'],
  'install-ci-test': ['install', 'test'],
};
const RUN_WORDS = new Set(['run', 'run-script', 'rum', 'urn']);
/** Options naming the folder whose package.json counts. */
const DIR_OPTIONS = new Set(['--prefix', '-C', '--dir', '--cwd']);
/** Options and words that run scripts of workspace packages, not (only) the nearest one. */
const WORKSPACE_WORDS = new Set([
  '-w',
  '--workspace',
  '--workspaces',
  '-ws',
  '--ws',
  '--filter',
  '-F',
  '-r',
  '--recursive',
  'workspace',
  'workspaces',
]);

export interface ScriptsPlan {
  /** Script names that may run, pre- and post- ones included. */
  names: Set<string>;
  /** A folder named by --prefix, -C, --dir or --cwd, relative to the working folder. */
  dir: string | undefined;
  /** Workspace packages may run them: every package.json in the project counts. */
  workspaces: boolean;
  /** The script's name is a variable or `$(…)`. */
  unknown: boolean;
}

/**
 * Which scripts a package-manager command may run. Deliberately generous rather than a parser of
 * four CLIs' options: every plain word that names a script counts, so an option value mistaken
 * for a word can only add a script to judge, never hide one.
 */
export function scriptsRun(command: SimpleCommand): ScriptsPlan {
  const plan: ScriptsPlan = { names: new Set(), dir: undefined, workspaces: false, unknown: false };
  // `node --run build` runs a package script too (no pre/post scripts).
  if (command.name === 'node') {
    const at = command.args.findIndex((arg) => valueOf(arg) === '--run');
    const script = at < 0 ? undefined : command.args[at + 1];
    if (script !== undefined) {
      const name = valueOf(script);
      if (name === undefined) plan.unknown = true;
      else plan.names.add(name);
    }
    return plan;
  }
  if (!MANAGERS.has(command.name)) return plan;
  const words = command.args.map((arg) => valueOf(arg));
  const add = (name: string) => {
    for (const each of [`pre${name}`, name, `post${name}`]) plan.names.add(each);
  };
  const operands: (string | undefined)[] = [];
  words.forEach((word, index) => {
    if (word === undefined) {
      operands.push(word);
      return;
    }
    const [option, inline] = word.split(/=(.*)/s, 2);
    if (option !== undefined && DIR_OPTIONS.has(option)) plan.dir = inline ?? words[index + 1];
    if (option !== undefined && WORKSPACE_WORDS.has(option)) plan.workspaces = true;
    if (!word.startsWith('-')) operands.push(word);
  });
  if (operands.length === 0) {
    // `yarn`, `pnpm`, `bun` alone install; bare `npm` prints its help.
    if (command.name !== 'npm') LIFECYCLE_INSTALL.forEach((name) => plan.names.add(name));
    return plan;
  }
  // Option values (`--prefix dir`, `--loglevel silent`) sit among the words too: rather than
  // know every option of four CLIs, look at every word, which can only add scripts to judge.
  const last = operands.length - 1;
  operands.forEach((word, index) => {
    const previous = index === 0 ? undefined : operands[index - 1];
    if (word === undefined) {
      if (index === 0 || (previous !== undefined && RUN_WORDS.has(previous))) plan.unknown = true;
      return;
    }
    if (INSTALLS.has(word) && index === last)
      LIFECYCLE_INSTALL.forEach((name) => plan.names.add(name));
    for (const name of SCRIPT_COMMANDS[word] ?? []) add(name);
  });
  // npm runs a script by name only through `run`; the others also as `pnpm lint`, `yarn build`.
  const byName =
    command.name !== 'npm' || operands.some((word) => word !== undefined && RUN_WORDS.has(word));
  // Words naming no script in package.json are skipped when the scripts are read.
  if (byName || plan.workspaces) for (const word of operands) if (word !== undefined) add(word);
  return plan;
}

export function judgePackageScripts(command: SimpleCommand, judge: Judge): void {
  const { policy } = judge;
  const cwd = command.cwd ?? policy.projectRoot;
  // `npm pkg set scripts.test=…` rewrites package.json: a script run after it in the same
  // command is not what the file says now.
  if (editsPackageJson(command)) {
    const found = nearestPackageJson(cwd);
    recordWrite(policy, found?.file ?? join(cwd, 'package.json'), command.name);
    return;
  }
  const plan = scriptsRun(command);
  if (plan.unknown) {
    judge.deny(
      'dynamic-code',
      `\`${shown(command)}\` runs a package script named only when it runs; name the script literally`,
    );
    return;
  }
  if (plan.names.size === 0) return;
  const from = plan.dir === undefined ? cwd : resolve(cwd, plan.dir);
  const packages = [nearestPackageJson(from)];
  const edited = [join(from, 'package.json'), ...packages.map((found) => found?.file)].find(
    (file) => file !== undefined && writerOf(file, policy) !== undefined,
  );
  if (edited === undefined && policy.unseenWriter !== undefined) {
    judge.deny(
      'script-written-here',
      `\`${shown(command)}\` runs package scripts after ${policy.unseenWriter}, which may rewrite package.json unseen; run it in a step of its own`,
    );
    return;
  }
  if (edited !== undefined) {
    judge.deny(
      'script-written-here',
      `\`${shown(command)}\` runs scripts of ${edited}, which this same command writes, so the guard would judge what it held before; change it in one step and run it in the next`,
    );
    return;
  }
  // After a `cd` the guard could not follow, any package of the project may be the one.
  if (plan.workspaces || command.cwd === undefined)
    packages.push(...packageJsonsUnder(judge.policy.projectRoot));
  const seen = new Set<string>();
  for (const found of packages) {
    if (found === undefined || seen.has(found.file)) continue;
    seen.add(found.file);
    for (const name of plan.names) {
      const script = found.scripts[name];
      if (typeof script !== 'string') continue;
      const file = relative(judge.policy.projectRoot, found.file);
      const shownFile = file.startsWith('..') || isAbsolute(file) ? found.file : file;
      judgeScriptText(command, judge, script, `package script "${name}" in ${shownFile}`);
    }
  }
}

/** `npm pkg set|delete …`, `npm set-script …`: package.json edited by the manager itself. */
function editsPackageJson(command: SimpleCommand): boolean {
  if (command.name !== 'npm') return false;
  const words = command.args.map((arg) => valueOf(arg)).filter((word) => !word?.startsWith('-'));
  return (
    words[0] === 'set-script' ||
    (words[0] === 'pkg' && (words[1] === 'set' || words[1] === 'delete'))
  );
}

interface PackageScripts {
  file: string;
  scripts: Record<string, unknown>;
}

function nearestPackageJson(from: string): PackageScripts | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const found = readPackageJson(join(dir, 'package.json'));
    if (found !== 'missing') return found;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Workspace packages: package.json files a few levels down, outside node_modules. */
function packageJsonsUnder(root: string, depth = 3): PackageScripts[] {
  const found: PackageScripts[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name.startsWith('.'))
      continue;
    const dir = join(root, entry.name);
    const scripts = readPackageJson(join(dir, 'package.json'));
    if (scripts !== 'missing' && scripts !== undefined) found.push(scripts);
    if (depth > 1) found.push(...packageJsonsUnder(dir, depth - 1));
  }
  return found;
}

/** 'missing' when there is no such file; undefined when it does not parse (npm refuses it). */
function readPackageJson(file: string): PackageScripts | undefined | 'missing' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 'missing';
  }
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown } | null)?.scripts;
    return {
      file,
      scripts:
        typeof scripts === 'object' && scripts !== null ? (scripts as Record<string, unknown>) : {},
    };
  } catch {
    return undefined;
  }
}
