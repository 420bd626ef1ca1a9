import { readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createProcessGroups, type ProcessGroups } from '../agents/process-groups.js';
import { createAgent } from '../agents/registry.js';
import type { AgentAdapter, PermissionMode, TokenUsage } from '../agents/types.js';
import type { LoopOptions } from '../core/engine.js';
import { runPreflight } from '../core/preflight.js';
import type { GuardSettings } from '../guard/policy.js';
import { tokenCountsSchema } from '../safety/budget.js';
import type { Config } from '../state/config-schema.js';
import { loadConfig, readConfigFile, type ConfigSource } from '../state/config.js';
import { findGitRepo } from '../state/git.js';
import {
  findPromptFile,
  loopPaths,
  projectPaths,
  requireTaskListFile,
  resolveLoopDir,
  userConfigPath,
  hybridUserConfigPath,
} from '../state/paths.js';
import { readStatus } from '../state/status.js';
import { RalphError } from '../util/errors.js';
import {
  checkRunOptions,
  configLayerOf,
  type CheckedRunOptions,
  type RunOptions,
} from './options.js';
import { safetySettingsFrom } from '../safety/settings.js';
import type { CommandWrapper } from '../agents/spawn.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { runSandboxFor, sandboxPreflight } from './sandbox.js';

/** Everything a run needs, resolved from options, config and the loop directory; nothing started. */
export interface RunPlan {
  /** The options as given, checked. */
  given: CheckedRunOptions;
  /** What runLoop gets (before the guard adds its hook). */
  options: LoopOptions;
  config: Config;
  /** Where each config key's value came from; a value still at its default was not chosen. */
  sources: Record<string, ConfigSource>;
  /** The guard's settings: config's, with the loop directory's own config on top. */
  guard: GuardSettings & { enabled?: boolean | undefined };
  agent: AgentAdapter;
  processGroups: ProcessGroups;
  /** The OS sandbox every agent process of the run starts in; undefined when off. */
  sandbox: Sandbox | undefined;
  homeDir: string;
  /** Where the prompt template came from: a file, or the built-in default. */
  promptSource: string;
  /** Worth showing before the run starts (protected branch, two task lists, config, …). */
  warnings: string[];
}

const BUILT_IN_PROMPT = new URL('../../templates/prompt.md', import.meta.url);

/**
 * Resolves a run without starting it: config (options > RALPH_* > project > user > defaults),
 * preflight (unless skipped; a failed check throws PREFLIGHT_FAILED), the loop directory, its task
 * list and prompt, and where an earlier run left off. `ralph run --dry-run` shows this.
 */
export async function planRun(input: RunOptions): Promise<RunPlan> {
  const given = checkRunOptions(input);
  const { env } = given;
  const cwd = given.cwd ?? process.cwd();
  // Without HOME in the given environment: the account's home (from the password database, not
  // from this process's environment, which the library does not read).
  const homeDir = given.homeDir ?? env.HOME ?? userInfo().homedir;
  const repo = await findGitRepo(cwd).catch(() => undefined);
  const loaded = await loadConfig({
    homeDir,
    env,
    repoRoot: repo?.root,
    flags: configLayerOf(given),
  });
  const { config, sources } = loaded;
  const warnings = [...loaded.warnings];
  const processGroups = given.processGroups ?? createProcessGroups();
  // Known once the loop folder is: every agent process goes through it from the first one on.
  let sandbox: Sandbox | undefined;
  const wrap: CommandWrapper = (file, args) => sandbox?.wrap(file, args) ?? { file, args };
  const agent =
    given.agent?.adapter ??
    createAgent(config.agent, {
      command: config.agents.claude.command ?? 'claude',
      env,
      processGroups,
      wrap,
    });
  if (given.skipPreflight !== true) warnings.push(...(await preflight(given, cwd, config, agent)));
  const resolved = await resolveLoopDir({
    dir: given.dir,
    cwd,
    protectedBranches: config.protectedBranches,
  });
  const sandboxed = await runSandboxFor({
    cwd,
    homeDir,
    loopDir: resolved.dir,
    env,
    settings: config.sandbox,
    guard: config.guard,
  });
  if (sandboxed.kind === 'missing') {
    throw new RalphError('PREFLIGHT_FAILED', `the sandbox is on, but ${sandboxed.reason}`, {
      hint: 'apt-get install bubblewrap, or turn the sandbox off: --no-sandbox or sandbox.enabled: false',
    });
  }
  if (sandboxed.kind === 'on') sandbox = sandboxed.sandbox;
  // In every run's output: an unsandboxed agent can do what this user can.
  else warnings.push(sandboxed.warning);
  const found = await requireTaskListFile(resolved.dir);
  const { template, source } = await promptTemplate(cwd, resolved.dir, given.promptFile);
  const paths = loopPaths(resolved.dir);
  // Preflight says "protected branch" too; once is enough.
  const saysProtected = resolved.warnings.some((each) => each.includes('protected branch'));
  warnings.push(...resolved.warnings, ...found.warnings);
  const shownWarnings = saysProtected
    ? warnings.filter((each) => !each.startsWith('On protected branch'))
    : warnings;
  const { resume, lastIteration } = await previousRun(resolved.dir, shownWarnings);
  const permission: PermissionMode = config.agents.claude.dangerouslySkipPermissions
    ? { kind: 'skip' }
    : { kind: 'mode', mode: 'acceptEdits' };
  const loopConfig = await readConfigFile(paths.config);
  return {
    given,
    config,
    sources,
    guard: { ...config.guard, ...loopConfig?.settings.guard },
    agent,
    processGroups,
    sandbox,
    homeDir,
    options: {
      loopDir: resolved.dir,
      cwd,
      taskListFile: found.path,
      promptTemplate: template,
      feature: resolved.branch ?? basename(resolved.dir),
      maxIterations: config.maxIterations,
      timeoutMs: config.timeoutMinutes * 60_000,
      pauseMs: config.pauseSeconds * 1000,
      models: {
        model: config.model,
        // The built-in default profile must not override feature_list category defaults.
        profile: sources.profile === 'default' ? undefined : config.profile,
      },
      permission,
      completionPatterns: config.completionPatterns,
      completionPromise: config.completion.promise,
      tokenBudget: config.context.tokenBudget,
      env,
      resume,
      lastIteration,
      hasSpec: await exists(paths.spec),
      hasSpecsDir: await exists(paths.specsDir),
      safety: safetySettingsFrom(config, given.resetBreaker === true),
      // Also the files that would steer later iterations and runs if the agent created them:
      // the sandbox keeps existing ones read-only but cannot stop a new file in a writable folder.
      configFiles: [
        projectPaths(repo?.root ?? cwd).config,
        projectPaths(repo?.root ?? cwd).hybridConfig,
        paths.config,
        userConfigPath({ homeDir, env }),
        hybridUserConfigPath(homeDir),
        paths.prompt,
        paths.ralphPrompt,
        join(repo?.root ?? cwd, '.mcp.json'),
        join(repo?.root ?? cwd, '.claude', 'settings.json'),
        join(repo?.root ?? cwd, '.claude', 'settings.local.json'),
      ],
      verification: {
        qualityChecks: config.qualityChecks,
        timeoutMs: config.verify.timeoutSeconds * 1000,
        testIntegrity: config.verify.testIntegrity,
        testFiles: config.verify.testFiles,
        pivotAfterRejections: config.verify.pivotAfterRejections,
        parkAfterRejections: config.verify.parkAfterRejections,
      },
      memory: {
        tokenBudget: config.memory.tokenBudget,
        injection: config.memory.injection,
        files: {
          feature: paths.memories,
          project: repo === undefined ? undefined : projectPaths(repo.root).memories,
        },
      },
    },
    promptSource: source,
    warnings: shownWarnings,
  };
}

/** Preflight's failures as one error; its warnings worth a run's attention, as sentences. */
async function preflight(
  given: CheckedRunOptions,
  cwd: string,
  config: Config,
  agent: AgentAdapter,
): Promise<string[]> {
  const report = await runPreflight({
    cwd,
    dir: given.dir,
    env: given.env,
    protectedBranches: config.protectedBranches,
    agent,
    sandbox: sandboxPreflight(config.sandbox, given.env),
    // Only a run that passes the flag can fail on it; the agent runs as this process's user.
    user: config.agents.claude.dangerouslySkipPermissions
      ? { uid: process.getuid?.(), skipPermissions: true }
      : undefined,
  });
  if (!report.ok) {
    const failed = report.checks.filter((each) => each.status === 'fail');
    const lines = failed.flatMap((check) => [
      `  ✗ ${check.message}`,
      ...check.details.map((detail) => `      - ${detail}`),
      ...(check.hint === undefined ? [] : [`      hint: ${check.hint}`]),
    ]);
    throw new RalphError('PREFLIGHT_FAILED', `preflight failed:\n${lines.join('\n')}`, {
      hint: 'fix the errors above (all checks: ralph validate), or pass --skip-preflight',
    });
  }
  // A missing progress.txt or spec.md is normal for many loops: validate says so, not run.
  return report.checks
    .filter((each) => each.status === 'warn' && each.name !== 'files')
    .map((check) =>
      check.hint === undefined ? check.message : `${check.message} (${check.hint})`,
    );
}

export interface PreviousRun {
  /** Set when the run continues a paused one, or one whose process died. */
  resume: { iteration: number; costUsd: number; tokens?: TokenUsage } | undefined;
  /** The last iteration number any earlier run reached: numbering goes on from it. */
  lastIteration: number;
}

/**
 * What a new run continues from: a paused run, or one whose process died (a RUNNING status
 * with no live holder — callers read this again once they hold the lock), keeps its iteration
 * count and cost; any earlier run keeps its iteration numbers (and so its logs). A status.json
 * that cannot be read is reported and ignored: the run rewrites it.
 */
export async function previousRun(loopDir: string, warnings: string[]): Promise<PreviousRun> {
  let previous;
  try {
    previous = await readStatus(loopDir);
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    warnings.push(`${error.message}; starting a new run (the file will be rewritten)`);
    return { resume: undefined, lastIteration: 0 };
  }
  if (previous === undefined) return { resume: undefined, lastIteration: 0 };
  const lastIteration = previous.iteration;
  if (previous.state !== 'PAUSED' && previous.state !== 'RUNNING') {
    return { resume: undefined, lastIteration };
  }
  const tokens = tokenCountsSchema.safeParse(previous.tokens);
  return {
    resume: {
      iteration: previous.iteration,
      costUsd: previous.costUsd ?? 0,
      ...(tokens.success ? { tokens: tokens.data } : {}),
    },
    lastIteration,
  };
}

async function promptTemplate(
  cwd: string,
  loopDir: string,
  promptFile: string | undefined,
): Promise<{ template: string; source: string }> {
  if (promptFile !== undefined) {
    const path = resolve(cwd, promptFile);
    const template = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new RalphError('USAGE', `cannot read the prompt file ${path}`, {
        hint: 'pass an existing file to -p/--prompt',
        cause: error,
      });
    });
    return { template, source: path };
  }
  const found = await findPromptFile(loopDir);
  if (found !== undefined)
    return { template: await readFile(found.path, 'utf8'), source: found.path };
  return { template: await readFile(BUILT_IN_PROMPT, 'utf8'), source: 'built-in prompt' };
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}
