import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { bwrapArgs } from './bwrap-args.js';
import {
  createPidsCgroup,
  deadOwnerEntries,
  joinCgroupFirst,
  processAlive,
  SANDBOX_PREFIX,
  sweepPidsCgroups,
  type PidsCgroup,
} from './pids-cgroup.js';
import { sandboxPolicy, type PathKind, type SandboxPolicy } from './policy.js';
import { findSecretFiles } from './secret-files.js';

/**
 * The sandbox of one run: every command wrapped by it runs inside bubblewrap with the run's
 * policy (policy.ts). The policy is computed again for each command from what is on disk then
 * (a `.env` created since, a new loop folder), which costs a few stat calls. The run's private
 * temp folder is created at the first command and removed by `dispose`.
 */

export interface SandboxInput {
  /** The work tree: writable. */
  projectRoot: string;
  /** The git folder (`<root>/.git`, or where a worktree's `.git` file points). */
  gitDir: string | undefined;
  homeDir: string;
  /** ralph's control files (loop and project) that exist or are folders to keep read-only. */
  controlPaths: readonly string[];
  /** Control folders created (empty) when missing, so the agent cannot create them. */
  controlDirs: readonly string[];
  /** The agent's environment: CLAUDE_CONFIG_DIR and PATH are read from it. */
  env: Readonly<Record<string, string | undefined>>;
  writable: readonly string[];
  readOnly: readonly string[];
  hidden: readonly string[];
  /** The guard's sensitiveFiles / allowSensitiveFiles: hidden anywhere in the project too. */
  secretPatterns?: { patterns: readonly string[]; allow: readonly string[] } | undefined;
  /** The most processes at once (0: no cap); a pids cgroup where one can be made. */
  maxProcesses?: number | undefined;
}

export interface Sandbox {
  /** The command that runs `file args` inside; `newSession` when it shares a terminal. */
  wrap(
    file: string,
    args: readonly string[],
    options?: { newSession?: boolean },
  ): { file: string; args: string[]; exitCodeCarriesSignal: true };
  /** The policy commands get now (for --dry-run and tests). */
  policy(): SandboxPolicy;
  /** Whether the process cap holds ('cgroup') or could not be set up here ('none'). */
  processCap(): 'cgroup' | 'none' | 'off';
  /** Removes the run's temp folder and cgroup. */
  dispose(): void;
}

export const BWRAP_INSTALL_HINT =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or turn the sandbox off with --no-sandbox / sandbox.enabled: false';

/** bubblewrap's path on PATH (or the usual places), if it is installed. */
export function findBwrap(path: string | undefined): string | undefined {
  const dirs = [...(path ?? '').split(delimiter), '/usr/bin', '/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, 'bwrap');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

export function createSandbox(bwrap: string, input: SandboxInput): Sandbox {
  let runDir: string | undefined;
  let cgroup: PidsCgroup | undefined;
  const maxProcesses = input.maxProcesses ?? 0;
  // The run's folder holds the private /tmp and the empty file hidden files show; only tmp/ is
  // writable inside, so the empty file stays empty. Its name carries ralph's pid: what a run
  // that was SIGKILLed left (folder, cgroup) is removed by the next one.
  const runFolder = () => {
    if (runDir !== undefined) return runDir;
    sweepLeftovers();
    const made = mkdtempSync(join(tmpdir(), `${SANDBOX_PREFIX}${process.pid}-`));
    mkdirSync(join(made, 'tmp'), { mode: 0o700 });
    writeFileSync(join(made, 'empty'), '', { mode: 0o444 });
    runDir = made;
    if (maxProcesses > 0) cgroup = createPidsCgroup(basename(made), maxProcesses);
    return made;
  };
  const policy = (command?: string) => {
    prepareFolders(input);
    const run = runFolder();
    return sandboxPolicy({
      programDirs: programDirs(input.env.PATH, command),
      projectRoot: input.projectRoot,
      ...gitFolders(input.projectRoot, input.gitDir),
      homeDir: input.homeDir,
      tmpDir: join(run, 'tmp'),
      emptyFile: join(run, 'empty'),
      controlPaths: [...input.controlPaths, ...input.controlDirs],
      envFiles: findSecretFiles(input.projectRoot, {
        patterns: input.secretPatterns?.patterns ?? [],
        allow: input.secretPatterns?.allow ?? [],
      }),
      agentStateDir: agentStateDir(input),
      extraWritable: input.writable.map((path) => expand(path, input)),
      extraReadOnly: input.readOnly.map((path) => expand(path, input)),
      extraHidden: [...input.hidden, ...literalOutsidePaths(input.secretPatterns?.patterns)].map(
        (path) => expand(path, input),
      ),
      kindOf,
      envNames: Object.keys(input.env).filter((name) => input.env[name] !== undefined),
    });
  };
  return {
    policy,
    wrap: (file, args, options) => {
      const sandboxed = bwrapArgs(
        policy(file),
        { file, args },
        { newSession: options?.newSession === true },
      );
      const command =
        cgroup === undefined
          ? { file: bwrap, args: sandboxed }
          : joinCgroupFirst(cgroup.procsFile, bwrap, sandboxed);
      // bubblewrap exits 128+N when the command dies of signal N.
      return { ...command, exitCodeCarriesSignal: true };
    },
    processCap: () => {
      if (maxProcesses === 0) return 'off';
      runFolder();
      return cgroup === undefined ? 'none' : 'cgroup';
    },
    dispose: () => {
      cgroup?.dispose();
      cgroup = undefined;
      if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
      runDir = undefined;
    },
  };
}

function agentStateDir(input: SandboxInput): string {
  const configured = input.env.CLAUDE_CONFIG_DIR;
  return configured !== undefined && isAbsolute(configured)
    ? configured
    : join(input.homeDir, '.claude');
}

/**
 * Folders that must exist before the sandbox starts: a missing one could not be created inside
 * (the agent's state folder, the npm cache and ~/.cache under a read-only home), or could be
 * created by the agent when it should be read-only (`.claude/`, the loop's hooks/).
 */
function prepareFolders(input: SandboxInput): void {
  const dirs = [
    agentStateDir(input),
    join(input.homeDir, '.npm'),
    join(input.homeDir, '.cache'),
    join(input.projectRoot, '.claude'),
    ...input.controlDirs,
  ];
  for (const dir of dirs) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      // A folder that cannot be made (a file in the way) is left as it is.
    }
  }
}

/** A worktree's git folders outside its work tree (its own and the common one): writable. */
function gitFolders(
  projectRoot: string,
  gitDir: string | undefined,
): { gitDirs: string[]; outsideGitDirs: string[] } {
  if (gitDir === undefined) return { gitDirs: [], outsideGitDirs: [] };
  const dirs = [resolve(gitDir)];
  try {
    const common = readFileSync(join(gitDir, 'commondir'), 'utf8').trim();
    if (common !== '') dirs.push(resolve(gitDir, common));
  } catch {
    // not a linked worktree
  }
  const inside = (dir: string) => dir === projectRoot || dir.startsWith(`${projectRoot}/`);
  return { gitDirs: dirs, outsideGitDirs: dirs.filter((dir) => !inside(dir)) };
}

/** Removes the temp folders and cgroups of sandboxes whose ralph is gone. */
function sweepLeftovers(): void {
  for (const dir of deadOwnerEntries(tmpdir(), processAlive)) {
    rmSync(dir, { recursive: true, force: true });
  }
  sweepPidsCgroups(processAlive);
}

/** The guard's sensitive paths named outright outside the project (`~/x`, `/x`, no globs). */
function literalOutsidePaths(patterns: readonly string[] | undefined): string[] {
  return (patterns ?? []).filter(
    (each) => (each.startsWith('/') || each.startsWith('~/')) && !/[*?[]/.test(each),
  );
}

function expand(path: string, input: SandboxInput): string {
  if (path === '~') return input.homeDir;
  if (path.startsWith('~/')) return join(input.homeDir, path.slice(2));
  return resolve(input.projectRoot, path);
}

function kindOf(path: string): PathKind {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'missing';
  }
}

/** PATH's folders and the command's, by their real paths (a .bin link points into its package). */
function programDirs(path: string | undefined, command: string | undefined): string[] {
  const real = (each: string): string => {
    try {
      return realpathSync(each);
    } catch {
      return each;
    }
  };
  const dirs = (path ?? '').split(delimiter).filter((each) => isAbsolute(each));
  const own = command !== undefined && isAbsolute(command) ? [dirname(real(command))] : [];
  return [...dirs.map(real), ...own];
}
