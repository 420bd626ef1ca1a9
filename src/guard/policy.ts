import { realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { GUARD_DEFAULTS, type NETWORK_POLICIES } from '../state/guard-defaults.js';
import { loopControlPaths, loopPaths, projectControlPaths, projectPaths } from '../state/paths.js';

/**
 * The guard's policy, resolved: absolute real paths and plain lists. Built from the `guard`
 * section of the configuration (state/guard-config-schema.ts documents every key and its default)
 * by `resolvePolicy`; the rules that need no configuration live in the code (commands.ts,
 * sensitive.ts), so the default lets ordinary development run while the dangerous set stays
 * denied even with an empty config.
 */

export type Decision = 'allow' | 'deny' | 'ask';

export type NetworkPolicy = (typeof NETWORK_POLICIES)[number];

/** The `guard` settings as configured (every key optional; see config-schema.ts). */
export interface GuardSettings {
  network?: NetworkPolicy | undefined;
  allowCommands?: readonly string[] | undefined;
  askCommands?: readonly string[] | undefined;
  denyCommands?: readonly string[] | undefined;
  allowPatterns?: readonly string[] | undefined;
  askPatterns?: readonly string[] | undefined;
  denyPatterns?: readonly string[] | undefined;
  writablePaths?: readonly string[] | undefined;
  readablePaths?: readonly string[] | undefined;
  allowTools?: readonly string[] | undefined;
  timeBudgetMs?: number | undefined;
  protectedPaths?: readonly string[] | undefined;
  sensitiveFiles?: readonly string[] | undefined;
  allowSensitiveFiles?: readonly string[] | undefined;
}

export interface GuardPolicy {
  /** The project (git root): writes and deletes are allowed inside it, not on it. */
  projectRoot: string;
  homeDir: string;
  /** Further folders where writes and deletes are allowed (not on the folder itself). */
  writableRoots: readonly string[];
  /** Further folders the file tools may read (besides the project and writableRoots). */
  readableRoots: readonly string[];
  /** Tools the guard does not know that may run anyway (names or `*` patterns). */
  allowTools: readonly string[];
  /** Inside the project, but never written or deleted by the agent (ralph's and git's control files). */
  protectedPaths: readonly string[];
  network: NetworkPolicy;
  allowCommands: readonly string[];
  askCommands: readonly string[];
  denyCommands: readonly string[];
  allowPatterns: readonly string[];
  askPatterns: readonly string[];
  denyPatterns: readonly string[];
  sensitiveFiles: readonly string[];
  allowSensitiveFiles: readonly string[];
  /** Nobody can answer a prompt (`ralph run`): `ask` becomes `deny`. */
  unattended: boolean;
  /**
   * When the run began (ms since the epoch): a script in the project whose ctime is older was
   * there before the agent and is not read (script-files.ts). Undefined: every script is read.
   */
  scriptsChangedSince?: number | undefined;
  /**
   * Set by judgeToolCall() for one tool call: the real paths its command writes, recorded by
   * writeProblem as they are judged, so a script run later in the same command is not judged by
   * the text it had before (`echo 'rm -rf ~' > x.sh && bash x.sh`).
   */
  written?: Map<string, string> | undefined;
  /**
   * Set by judgeToolCall() for one tool call: folder listings read to match glob arguments (each
   * folder read once) and how many names were matched, bounded by MAX_GLOB_NAMES (limits.ts).
   */
  globScan?: { listings: Map<string, readonly string[]>; names: number } | undefined;
  /**
   * Set by judgeToolCall() for one tool call: a program in its command that writes files it does not
   * name (`tar x`, `unzip`, `git checkout`, `patch`), so any script may have changed.
   */
  unseenWriter?: string | undefined;
}

/** The configurable lists' defaults (stated in config.yaml's table, which refers to these). */
export const DEFAULT_GUARD_SETTINGS = GUARD_DEFAULTS satisfies Required<
  Omit<GuardSettings, 'timeBudgetMs'>
>;

/**
 * Files the agent must never write or delete, relative to the project root: git's and Claude
 * Code's. ralph's own (its config, the interactive guard's audit log, a loop directory's control
 * files) come from state/paths.ts, the one place that names them.
 */
const BUILT_IN_PROTECTED = [
  '.git',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.claude/hooks',
  '.mcp.json',
];

export interface ResolvePolicyInput {
  projectRoot: string;
  homeDir: string;
  /** The loop directory of a `ralph run`, whose control files are protected. */
  loopDir?: string | undefined;
  settings?: GuardSettings | undefined;
  unattended: boolean;
  /** See GuardPolicy.scriptsChangedSince. */
  scriptsChangedSince?: number | undefined;
}

export function resolvePolicy(input: ResolvePolicyInput): GuardPolicy {
  const settings = { ...DEFAULT_GUARD_SETTINGS, ...definedOnly(input.settings ?? {}) };
  const projectRoot = realPath(input.projectRoot);
  const homeDir = realPath(input.homeDir);
  const inProject = (path: string) => realPath(isAbsolute(path) ? path : join(projectRoot, path));
  const loopDir = input.loopDir === undefined ? undefined : realPath(input.loopDir);
  return {
    projectRoot,
    homeDir,
    writableRoots: settings.writablePaths.map((path) =>
      realPath(path.startsWith('~/') ? join(homeDir, path.slice(2)) : resolve(projectRoot, path)),
    ),
    readableRoots: settings.readablePaths.map((path) =>
      realPath(path.startsWith('~/') ? join(homeDir, path.slice(2)) : resolve(projectRoot, path)),
    ),
    allowTools: settings.allowTools,
    protectedPaths: [
      ...BUILT_IN_PROTECTED.map(inProject),
      ...projectControlPaths(projectPaths(projectRoot)).map(inProject),
      ...(loopDir === undefined ? [] : loopControlPaths(loopPaths(loopDir))),
      ...settings.protectedPaths.map(inProject),
    ],
    network: settings.network,
    allowCommands: settings.allowCommands,
    askCommands: settings.askCommands,
    denyCommands: settings.denyCommands,
    allowPatterns: settings.allowPatterns,
    askPatterns: settings.askPatterns,
    denyPatterns: settings.denyPatterns,
    sensitiveFiles: settings.sensitiveFiles,
    allowSensitiveFiles: settings.allowSensitiveFiles,
    unattended: input.unattended,
    scriptsChangedSince: input.scriptsChangedSince,
  };
}

function definedOnly(settings: GuardSettings): Partial<GuardSettings> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}

/**
 * The real path of `path`: symlinks resolved in the longest prefix that exists, the rest kept
 * (a file about to be created has no real path yet, but its folder does).
 */
export function realPath(path: string): string {
  const absolute = resolve(path);
  const tail: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync(current);
      return tail.length === 0 ? real : join(real, ...tail.reverse());
    } catch {
      const parent = resolve(current, '..');
      if (parent === current) return absolute;
      tail.push(current.slice(parent.length).replace(/^\//, ''));
      current = parent;
    }
  }
}
