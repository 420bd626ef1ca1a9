import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { PermissionMode, TokenUsage } from '../../agents/types.js';
import type { LoopOptions } from '../../core/engine.js';
import type { Profile } from '../../core/model-select.js';
import type { ConfigFile } from '../../state/config-schema.js';
import { findPromptFile, findTaskListFile, loopPaths, resolveLoopDir } from '../../state/paths.js';
import { tokenCountsSchema } from '../../safety/budget.js';
import { readStatus } from '../../state/status.js';
import { RalphError } from '../../util/errors.js';
import type { CliContext } from '../context.js';
import type { CommandSettings } from '../settings.js';
import { safetyFlagsToConfig, safetySettingsFrom, type SafetyFlags } from './run-safety.js';

/** `ralph run` flags that are also configuration keys (flags win over every other source). */
export interface RunFlags extends Partial<SafetyFlags> {
  maxIterations: number | undefined;
  timeoutMinutes: number | undefined;
  model: string | undefined;
  profile: Profile | undefined;
  pauseSeconds: number | undefined;
  agent: 'claude' | undefined;
  dangerouslySkipPermissions: boolean | undefined;
}

export function runFlagsToConfig(flags: RunFlags): ConfigFile {
  const {
    dangerouslySkipPermissions,
    idleTimeoutMinutes,
    maxCostUsd,
    usageLimitAction,
    callsPerHour,
    ...rest
  } = flags;
  const defined = Object.fromEntries(
    Object.entries(rest).filter(([, value]) => value !== undefined),
  );
  const safety = safetyFlagsToConfig({
    idleTimeoutMinutes,
    maxCostUsd,
    usageLimitAction,
    callsPerHour,
  });
  return dangerouslySkipPermissions === true
    ? { ...defined, ...safety, agents: { claude: { dangerouslySkipPermissions: true } } }
    : { ...defined, ...safety };
}

export interface PreparedRun {
  options: LoopOptions;
  /** Where the prompt template came from: a file, or the built-in default. */
  promptSource: string;
  /** Warnings worth showing before the run starts (protected branch, two task lists, …). */
  warnings: string[];
}

const BUILT_IN_PROMPT = new URL('../../../templates/prompt.md', import.meta.url);

/** Everything a run needs, resolved from flags, config and the loop directory; starts nothing. */
export async function prepareRun(input: {
  context: CliContext;
  dir: string | undefined;
  settings: CommandSettings;
  promptFile: string | undefined;
  /** `--reset-breaker`: close the circuit breaker before the run starts. */
  resetBreaker?: boolean | undefined;
}): Promise<PreparedRun> {
  const { context, settings } = input;
  const { config, sources } = settings;
  const resolved = await resolveLoopDir({
    dir: input.dir,
    cwd: context.cwd,
    protectedBranches: config.protectedBranches,
  });
  const found = await findTaskListFile(resolved.dir);
  if (found === undefined) {
    throw new RalphError(
      'TASK_LIST_NOT_FOUND',
      `no prd.json or feature_list.json in ${resolved.dir}`,
      {
        hint: 'create the loop directory with `ralph init`, or pass the DIR that holds your task list',
      },
    );
  }
  const { template, source } = await promptTemplate(context.cwd, resolved.dir, input.promptFile);
  const paths = loopPaths(resolved.dir);
  const warnings = [...resolved.warnings, ...found.warnings];
  const { resume, lastIteration } = await previousRun(resolved.dir, warnings);
  const permission: PermissionMode = config.agents.claude.dangerouslySkipPermissions
    ? { kind: 'skip' }
    : { kind: 'mode', mode: 'acceptEdits' };
  return {
    options: {
      loopDir: resolved.dir,
      cwd: context.cwd,
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
      env: context.env,
      resume,
      lastIteration,
      hasSpec: await exists(paths.spec),
      hasSpecsDir: await exists(paths.specsDir),
      safety: safetySettingsFrom(config, input.resetBreaker === true),
    },
    promptSource: source,
    warnings,
  };
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
