import { dirname } from 'node:path';
import { findGitRepo } from '../state/git.js';
import type { Config } from '../state/config-schema.js';
import { loopControlPaths, loopPaths, projectControlPaths, projectPaths } from '../state/paths.js';
import { createSandbox, findBwrap, type Sandbox } from '../sandbox/sandbox.js';

/**
 * The sandbox of a run (or of `ralph sandbox`) from its config and loop folder: the work tree is
 * the repository around cwd (else cwd), ralph's control files are the loop's and the project's.
 * Only Linux has one for now; elsewhere `sandbox.enabled` gives a warning and no sandbox. `ralph
 * run` and `ralph sandbox` both get theirs here, so a replay through `ralph sandbox` meets the
 * agent's own sandbox.
 */

export interface RunSandboxInput {
  cwd: string;
  homeDir: string;
  loopDir: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  settings: Config['sandbox'];
  /** The guard's secrets: hidden inside the sandbox too, anywhere in the project. */
  guard?: Pick<Config['guard'], 'sensitiveFiles' | 'allowSensitiveFiles'> | undefined;
  platform?: NodeJS.Platform;
}

export type RunSandbox =
  | { kind: 'on'; sandbox: Sandbox; bwrap: string }
  | { kind: 'missing'; reason: string }
  | { kind: 'off'; warning: string };

export const SANDBOX_OFF_WARNING =
  "the agent runs without the OS sandbox: its tools can write anywhere this user can and read this user's secrets (sandbox.enabled: true, or drop --no-sandbox)";

/** What preflight checks of the sandbox (core/preflight.ts): undefined when it is off here. */
export function sandboxPreflight(
  settings: Config['sandbox'],
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): { bwrapFound: boolean } | undefined {
  if (!settings.enabled || platform !== 'linux') return undefined;
  return { bwrapFound: findBwrap(env.PATH) !== undefined };
}

export async function runSandboxFor(input: RunSandboxInput): Promise<RunSandbox> {
  if (!input.settings.enabled) return { kind: 'off', warning: SANDBOX_OFF_WARNING };
  if ((input.platform ?? process.platform) !== 'linux') {
    return {
      kind: 'off',
      warning: `${SANDBOX_OFF_WARNING}; ralph has an OS sandbox only on Linux so far`,
    };
  }
  const bwrap = findBwrap(input.env.PATH);
  if (bwrap === undefined)
    return { kind: 'missing', reason: 'bubblewrap (bwrap) is not installed' };
  const repo = await findGitRepo(input.cwd).catch(() => undefined);
  const projectRoot = repo?.root ?? input.cwd;
  const loop = input.loopDir === undefined ? undefined : loopPaths(input.loopDir);
  const project = projectPaths(projectRoot);
  const controlDirs = [
    ...(loop === undefined ? [] : [loop.hooksDir, loop.logsDir]),
    // The audit log's folder: made before the agent can put a file or link there.
    dirname(project.auditLog),
  ];
  const controlPaths = [
    ...(loop === undefined ? [] : [...loopControlPaths(loop), loop.prompt, loop.ralphPrompt]),
    ...projectControlPaths(project),
  ];
  const sandbox = createSandbox(bwrap, {
    projectRoot,
    gitDir: repo?.gitDir,
    homeDir: input.homeDir,
    controlPaths,
    controlDirs,
    env: input.env,
    writable: input.settings.writable,
    readOnly: input.settings.readOnly,
    hidden: input.settings.hidden,
    secretPatterns: {
      patterns: input.guard?.sensitiveFiles ?? [],
      allow: input.guard?.allowSensitiveFiles ?? [],
    },
    maxProcesses: input.settings.maxProcesses,
  });
  return { kind: 'on', sandbox, bwrap };
}
