import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { RalphError } from '../util/errors.js';
import { findGitRepo } from './git.js';

/**
 * The only module that knows file names inside a loop directory (design.md §2) and where the
 * config files live. Everything else asks here, so a rename is a one-line change.
 */

export const HOOK_POINTS = [
  'pre_run',
  'post_run',
  'pre_iteration',
  'post_iteration',
  'on_completion',
  'on_error',
] as const;
export type HookPoint = (typeof HOOK_POINTS)[number];

export const DEFAULT_PROTECTED_BRANCHES: readonly string[] = ['main', 'master', 'develop'];

/** The project folder under a repo root; loop directories default to `<it>/<branch folder>`. */
export const PROJECT_DIR_NAME = '.ralph';

/**
 * The Ralph Hybrid layout (`.ralph-hybrid/<branch>/`, `.ralph-hybrid/config.yaml`,
 * `~/.ralph-hybrid/config.yaml`): read as well, so its users can move over without renaming.
 */
export const HYBRID_DIR_NAME = '.ralph-hybrid';

export interface LoopPaths {
  dir: string;
  prd: string;
  featureList: string;
  prompt: string;
  /** The alternative prompt name some existing loops use. */
  ralphPrompt: string;
  progress: string;
  spec: string;
  specsDir: string;
  memories: string;
  status: string;
  events: string;
  /** One line per check ralph ran to verify a story (evidence-log.ts). */
  evidence: string;
  /** The safety policies' state: circuit breaker, rate window, costs, a pending usage-limit wait. */
  safety: string;
  logsDir: string;
  /**
   * The task list as it was when the running attempt's agent started (task-list-snapshot.ts):
   * what the next run restores a task list torn by a kill from. In logs/, which the agent may
   * not write.
   */
  taskListSnapshot: string;
  /** The agent's raw output for one attempt of one iteration (both counted from 1). */
  iterationLog(iteration: number, attempt: number): string;
  auditLog: string;
  /** The loop's own config.yaml: settings (the guard's) that override the project's for this loop. */
  config: string;
  runLog: string;
  hooksDir: string;
  hook(point: HookPoint): string;
  archiveDir: string;
  /** The lock: a folder holding one `holder-<token>.json` (lock.ts explains why a folder). */
  lock: string;
  /** Keeps ralph's run state (status, events, logs, lock) out of the user's commits. */
  gitignore: string;
  /** `ralph verify`'s report (the agent's goal-backward check and ralph's own stub scan). */
  verification: string;
  /** `ralph debug`'s state across sessions: symptoms, hypotheses, evidence, checkpoints. */
  debugState: string;
  /** The agent's raw output of the last `ralph verify`. */
  verifyLog: string;
  /** The agent's raw output of one `ralph debug` session (counted from 1). */
  debugLog(session: number): string;
}

export function loopPaths(dir: string): LoopPaths {
  const root = resolve(dir);
  const logsDir = join(root, 'logs');
  const hooksDir = join(root, 'hooks');
  return {
    dir: root,
    prd: join(root, 'prd.json'),
    featureList: join(root, 'feature_list.json'),
    prompt: join(root, 'prompt.md'),
    ralphPrompt: join(root, 'RALPH_PROMPT.md'),
    progress: join(root, 'progress.txt'),
    spec: join(root, 'spec.md'),
    specsDir: join(root, 'specs'),
    memories: join(root, 'memories.md'),
    status: join(root, 'status.json'),
    events: join(root, 'events.jsonl'),
    evidence: join(root, 'evidence.jsonl'),
    safety: join(root, 'safety.json'),
    logsDir,
    taskListSnapshot: join(logsDir, 'task-list-snapshot.json'),
    iterationLog(iteration, attempt) {
      // Numbers become part of a file name: refuse anything that is not a plain counter.
      assertCounter('iteration', iteration);
      assertCounter('attempt', attempt);
      return join(logsDir, `iteration-${iteration}-attempt-${attempt}.jsonl`);
    },
    auditLog: join(logsDir, 'audit.jsonl'),
    config: join(root, 'config.yaml'),
    runLog: join(logsDir, 'run.log'),
    hooksDir,
    hook: (point) => join(hooksDir, `${point}.sh`),
    archiveDir: join(root, 'archive'),
    lock: join(root, '.ralph.lock'),
    gitignore: join(root, '.gitignore'),
    verification: join(root, 'VERIFICATION.md'),
    debugState: join(root, 'debug-state.md'),
    verifyLog: join(logsDir, 'verify.jsonl'),
    debugLog(session) {
      assertCounter('session', session);
      return join(logsDir, `debug-session-${session}.jsonl`);
    },
  };
}

/**
 * What ralph alone writes in a loop directory, so the guard keeps the agent off it: its config,
 * hook scripts, logs and run state. The task list is not among them (the agent marks stories
 * passing; ralph checks and restores what it may not change), nor progress.txt (it appends).
 */
export function loopControlPaths(paths: LoopPaths): string[] {
  return [
    paths.config,
    paths.hooksDir,
    paths.logsDir,
    paths.status,
    paths.events,
    paths.evidence,
    paths.safety,
    paths.lock,
  ];
}

/** The iteration and attempt an iteration log's file name stands for; undefined for other files. */
export function iterationLogNumbers(
  fileName: string,
): { iteration: number; attempt: number } | undefined {
  const match = /^iteration-([1-9]\d*)-attempt-([1-9]\d*)\.jsonl$/.exec(fileName);
  if (match === null) return undefined;
  return { iteration: Number(match[1]), attempt: Number(match[2]) };
}

function assertCounter(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a whole number >= 1, got ${String(value)}`);
  }
}

export interface ProjectPaths {
  ralphDir: string;
  config: string;
  /** Memories every feature of the project inherits (the loop directory's memories.md adds to them). */
  memories: string;
  /** The guard's decisions in interactive sessions (`ralph setup --guard`), outside any loop. */
  auditLog: string;
  /** `.ralph-hybrid/config.yaml`, read below `.ralph/config.yaml` (state/hybrid-config.ts). */
  hybridConfig: string;
}

/** The project's own files the agent must not change: its config and the guard's audit logs. */
export function projectControlPaths(paths: ProjectPaths): string[] {
  return [paths.config, dirname(paths.auditLog), paths.hybridConfig];
}

export function projectPaths(repoRoot: string): ProjectPaths {
  const ralphDir = join(resolve(repoRoot), PROJECT_DIR_NAME);
  return {
    ralphDir,
    config: join(ralphDir, 'config.yaml'),
    memories: join(ralphDir, 'memories.md'),
    auditLog: join(ralphDir, 'logs', 'audit.jsonl'),
    hybridConfig: join(resolve(repoRoot), HYBRID_DIR_NAME, 'config.yaml'),
  };
}

/** Ralph Hybrid's global config, `~/.ralph-hybrid/config.yaml`, read below ralph's user config. */
export function hybridUserConfigPath(homeDir: string): string {
  return join(homeDir, HYBRID_DIR_NAME, 'config.yaml');
}

/**
 * The folders whose direct subfolders may be loop directories (`ralph list`, the web dashboard):
 * ralph's own `.ralph/` and the layout the bash loops used, `.claude/data/ralph-loops/`. A loop
 * kept anywhere else is listed when its DIR is named.
 */
export function loopSearchRoots(repoRoot: string): string[] {
  const root = resolve(repoRoot);
  return [
    join(root, PROJECT_DIR_NAME),
    join(root, '.claude', 'data', 'ralph-loops'),
    join(root, HYBRID_DIR_NAME),
  ];
}

/**
 * `$XDG_CONFIG_HOME/ralph/config.yaml`, else `<home>/.config/ralph/config.yaml`. A relative
 * XDG_CONFIG_HOME is ignored, as the XDG spec asks.
 */
export function userConfigPath(options: {
  homeDir: string;
  env: Readonly<Record<string, string | undefined>>;
}): string {
  const xdg = options.env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(options.homeDir, '.config');
  return join(base, 'ralph', 'config.yaml');
}

export interface FoundFile<Kind extends string> {
  path: string;
  kind: Kind;
  warnings: string[];
}

/** prd.json wins over feature_list.json; both present is worth a warning (one is ignored). */
export async function findTaskListFile(
  dir: string,
): Promise<FoundFile<'prd' | 'feature_list'> | undefined> {
  const paths = loopPaths(dir);
  return firstExisting([
    { path: paths.prd, kind: 'prd' as const },
    { path: paths.featureList, kind: 'feature_list' as const },
  ]);
}

/** The task list a command needs, or an error that says how to make one. */
export async function requireTaskListFile(dir: string): Promise<FoundFile<'prd' | 'feature_list'>> {
  const found = await findTaskListFile(dir);
  if (found !== undefined) return found;
  throw new RalphError('TASK_LIST_NOT_FOUND', `no prd.json or feature_list.json in ${dir}`, {
    hint: '`ralph init --missing` writes an example task list (and any other missing file), or pass the DIR that holds yours',
  });
}

/** prompt.md wins over RALPH_PROMPT.md, with a warning when both exist. */
export async function findPromptFile(
  dir: string,
): Promise<FoundFile<'prompt' | 'ralph_prompt'> | undefined> {
  const paths = loopPaths(dir);
  return firstExisting([
    { path: paths.prompt, kind: 'prompt' as const },
    { path: paths.ralphPrompt, kind: 'ralph_prompt' as const },
  ]);
}

async function firstExisting<Kind extends string>(
  candidates: { path: string; kind: Kind }[],
): Promise<FoundFile<Kind> | undefined> {
  const present: { path: string; kind: Kind }[] = [];
  for (const candidate of candidates) {
    if (await isFile(candidate.path)) present.push(candidate);
  }
  const [chosen, ...ignored] = present;
  if (chosen === undefined) return undefined;
  const warnings = ignored.map(
    (other) => `both ${chosen.path} and ${other.path} exist; using ${chosen.path}`,
  );
  return { ...chosen, warnings };
}

export async function isFile(path: string): Promise<boolean> {
  const stats = await stat(path).catch(() => undefined);
  return stats?.isFile() ?? false;
}

/**
 * A branch name as one folder name: `/` becomes `-` (feature/user-auth → feature-user-auth), and
 * so do the characters Windows forbids in file names (`\ : * ? " < > |`) and control
 * characters, which git allows in some of these positions. Everything else, Unicode included,
 * is kept. Distinct branches can share a folder (feature/a and feature-a); that is accepted, as
 * the name must stay readable.
 */
export function branchToFolderName(branch: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what we strip
  return branch.replace(/[/\\:*?"<>|\u0000-\u001f\u007f]/g, '-');
}

export interface ResolvedLoopDir {
  dir: string;
  branch?: string;
  repoRoot?: string;
  warnings: string[];
}

/**
 * Where a run keeps its state (design.md §2): DIR as given, resolved against cwd; else
 * `.ralph/<branch folder>/` at the root of the repo around cwd. The branch checks only apply
 * to the derived folder: an explicit DIR is the user's own choice of layout.
 */
export async function resolveLoopDir(options: {
  dir?: string | undefined;
  cwd: string;
  protectedBranches?: readonly string[] | undefined;
}): Promise<ResolvedLoopDir> {
  if (options.dir !== undefined) {
    const dir = resolve(options.cwd, options.dir);
    // Informational only (the repo holding DIR, for project config): a broken or missing
    // repository must not stop a run whose folder was named explicitly.
    const repo = await findGitRepo(dir).catch(() => undefined);
    if (repo === undefined) return { dir, warnings: [] };
    return { dir, repoRoot: repo.root, ...branchField(repo.branch), warnings: [] };
  }
  const repo = await findGitRepo(options.cwd);
  if (repo === undefined) {
    throw new RalphError('NOT_A_GIT_REPO', `${options.cwd} is not inside a git repository`, {
      // Not "pass DIR": `ralph run DIR` outside a repository fails its preflight all the same.
      hint: 'ralph works in a git repository (the agent commits each story): run `git init` here first, or cd into your repository.',
    });
  }
  if (repo.branch === undefined) {
    throw new RalphError('DETACHED_HEAD', `HEAD is detached in ${repo.root}: not on a branch`, {
      hint: 'Check out a branch (git switch -c <name>) so ralph can use .ralph/<branch>/, or pass the loop directory (ralph run DIR).',
    });
  }
  const protectedBranches = options.protectedBranches ?? DEFAULT_PROTECTED_BRANCHES;
  const warnings = protectedBranches.includes(repo.branch)
    ? [
        `running on protected branch '${repo.branch}': the agent will commit here; consider a feature branch (git switch -c feature/<name>)`,
      ]
    : [];
  return {
    dir: await branchLoopDir(repo.root, branchToFolderName(repo.branch)),
    branch: repo.branch,
    repoRoot: repo.root,
    warnings,
  };
}

/**
 * `.ralph/<folder>`, unless only Ralph Hybrid's `.ralph-hybrid/<folder>` exists: then that one,
 * so a ralph-hybrid user's loop runs where it is.
 */
async function branchLoopDir(repoRoot: string, folder: string): Promise<string> {
  const own = join(projectPaths(repoRoot).ralphDir, folder);
  const hybrid = join(resolve(repoRoot), HYBRID_DIR_NAME, folder);
  const isDir = async (path: string) => (await stat(path).catch(() => undefined))?.isDirectory();
  if ((await isDir(own)) !== true && (await isDir(hybrid)) === true) return hybrid;
  return own;
}

function branchField(branch: string | undefined): { branch?: string } {
  return branch === undefined ? {} : { branch };
}
