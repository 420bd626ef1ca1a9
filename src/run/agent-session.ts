import * as z from 'zod';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { createProcessGroups, type ProcessGroups } from '../agents/process-groups.js';
import { createAgent } from '../agents/registry.js';
import type { AgentAdapter, AgentEvent, AgentRunResult, PermissionMode } from '../agents/types.js';
import { PROFILE_MODELS } from '../core/model-select.js';
import { configLayerOf, settingAt } from '../state/config-facts.js';
import type { Config } from '../state/config-schema.js';
import { loadConfig, readConfigFile } from '../state/config.js';
import { findGitRepo } from '../state/git.js';
import { acquireLock } from '../state/lock.js';
import { loopPaths, resolveLoopDir, type LoopPaths } from '../state/paths.js';
import { RalphError } from '../util/errors.js';
import { startRunGuard } from './guard.js';

/**
 * What `ralph verify` and `ralph debug` share: one agent session (not a loop) in the loop
 * directory's repository, with the config, model choice, permissions and guard of `ralph run`.
 */

const instance = <T>(name: string, test: (value: unknown) => boolean) =>
  z.custom<T>(test, { message: `expected ${name}` });
const isObjectWith = (value: unknown, key: string): boolean =>
  typeof value === 'object' && value !== null && key in value;

export const sessionOptionsSchema = z.strictObject({
  /** The loop directory; default `.ralph/<branch>/` of the repository around `cwd`. */
  dir: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
  /** RALPH_* settings are read from it and the agent runs with it (the library reads no process.env). */
  env: instance<Readonly<Record<string, string | undefined>>>(
    'an object of environment variables',
    (value) => typeof value === 'object' && value !== null,
  ),
  homeDir: z.string().optional(),
  /** `-m`: wins over the profile. */
  model: settingAt('model').type.optional(),
  /** `--profile`: quality (opus), balanced (sonnet), budget (haiku). */
  profile: settingAt('profile').type.optional(),
  /** Wall-clock limit of the agent; default config timeoutMinutes. */
  timeoutMinutes: settingAt('timeoutMinutes').type.optional(),
  /** The agent's executable, or an adapter (tests, other agents). */
  agent: z
    .strictObject({
      command: z.string().min(1).optional(),
      adapter: instance<AgentAdapter>('an AgentAdapter', (value) =>
        isObjectWith(value, 'run'),
      ).optional(),
    })
    .optional(),
  /** Aborting kills the agent's process tree; the result says `interrupted`. */
  signal: instance<AbortSignal>(
    'an AbortSignal',
    (value) => value instanceof AbortSignal,
  ).optional(),
  /** Every parsed line of the agent's output as it arrives (`-v`). */
  onEvent: instance<(event: AgentEvent) => void>(
    'a function',
    (value) => typeof value === 'function',
  ).optional(),
  processGroups: instance<ProcessGroups>('ProcessGroups', (value) =>
    isObjectWith(value, 'signalAll'),
  ).optional(),
});
export type SessionOptions = z.input<typeof sessionOptionsSchema>;
type CheckedSessionOptions = z.output<typeof sessionOptionsSchema>;

export interface Session {
  given: CheckedSessionOptions;
  config: Config;
  paths: LoopPaths;
  repoRoot: string;
  branch: string | undefined;
  /** The model the agent is asked for; undefined leaves the agent's default. */
  model: string | undefined;
  agent: AgentAdapter;
  /** The session's agent process groups: the guard kills them at once if it fails. */
  processGroups: ProcessGroups;
  homeDir: string;
}

/** Checks options the way startRun does: a wrong one is a RalphError naming it. */
export function checkSessionOptions(caller: string, options: unknown): CheckedSessionOptions {
  const parsed = sessionOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join('.') ?? '';
  throw new RalphError('USAGE', `${caller}: option ${path}: ${issue?.message ?? 'invalid'}`, {
    hint: `known options: ${Object.keys(sessionOptionsSchema.shape).join(', ')}`,
  });
}

export async function prepareSession(given: CheckedSessionOptions): Promise<Session> {
  const cwd = given.cwd ?? process.cwd();
  const homeDir = given.homeDir ?? given.env.HOME ?? homedir();
  const repo = await findGitRepo(cwd).catch(() => undefined);
  const { config, sources } = await loadConfig({
    homeDir,
    env: given.env,
    repoRoot: repo?.root,
    flags: configLayerOf({
      model: given.model,
      profile: given.profile,
      timeoutMinutes: given.timeoutMinutes,
      'agents.claude.command': given.agent?.command,
    }),
  });
  const resolved = await resolveLoopDir({
    dir: given.dir,
    cwd,
    protectedBranches: config.protectedBranches,
  });
  if ((await stat(resolved.dir).catch(() => undefined))?.isDirectory() !== true) {
    throw new RalphError('LOOP_DIR_NOT_FOUND', `no loop directory at ${resolved.dir}`, {
      hint: 'create it with `ralph init`, or pass the DIR that holds your spec and task list',
    });
  }
  const repoRoot = resolved.repoRoot ?? repo?.root;
  if (repoRoot === undefined) {
    throw new RalphError('NOT_A_GIT_REPO', `${resolved.dir} is not inside a git repository`, {
      hint: 'verify and debug compare the feature with its base branch: run them in the repository',
    });
  }
  const processGroups = given.processGroups ?? createProcessGroups();
  const agent =
    given.agent?.adapter ??
    createAgent(config.agent, {
      command: config.agents.claude.command ?? 'claude',
      env: given.env,
      processGroups,
    });
  // Like `ralph run`: a model given anywhere wins; a profile counts only when someone chose it.
  const model =
    config.model ?? (sources.profile === 'default' ? undefined : PROFILE_MODELS[config.profile]);
  return {
    given,
    config,
    paths: loopPaths(resolved.dir),
    repoRoot,
    branch: resolved.branch,
    model,
    agent,
    processGroups,
    homeDir,
  };
}

/**
 * Holds the loop directory's lock while `work` runs: a debug session changes code and a verify
 * reads it, neither while `ralph run` (or another session) works in the same loop.
 */
export async function withSessionLock<T>(
  session: Session,
  command: string,
  work: () => Promise<T>,
): Promise<T> {
  const lock = await acquireLock(session.paths.dir, {
    pid: process.pid,
    command: `${command} ${session.paths.dir}`,
    now: new Date(),
  });
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/**
 * Runs the agent once on `prompt` in the repository, behind the guard of `ralph run` (unless
 * config turns it off), so its Bash calls are decided by the same policy.
 */
export async function runSessionAgent(
  session: Session,
  prompt: string,
  logFile: string,
): Promise<AgentRunResult> {
  const { config, given } = session;
  const permission: PermissionMode = config.agents.claude.dangerouslySkipPermissions
    ? { kind: 'skip' }
    : { kind: 'mode', mode: 'acceptEdits' };
  const controller = new AbortController();
  const forward = (): void => {
    controller.abort();
  };
  given.signal?.addEventListener('abort', forward, { once: true });
  if (given.signal?.aborted === true) controller.abort();
  const loopConfig = await readConfigFile(session.paths.config);
  let guardFailure: Error | undefined;
  const guard = await startRunGuard({
    cwd: session.repoRoot,
    homeDir: session.homeDir,
    loopDir: session.paths.dir,
    settings: { ...config.guard, ...loopConfig?.settings.guard },
    processGroups: session.processGroups,
    onFailure: (error) => {
      guardFailure = error;
      controller.abort();
    },
  });
  const base = { settings: undefined, env: given.env };
  const guarded = guard === undefined ? base : guard.apply(base);
  try {
    const result = await session.agent.run({
      prompt,
      cwd: session.repoRoot,
      model: session.model,
      mcpServers: undefined,
      permission,
      settings: guarded.settings,
      env: guarded.env,
      logFile,
      timeoutMs: config.timeoutMinutes * 60_000,
      signal: controller.signal,
      ...(given.onEvent === undefined ? {} : { onEvent: given.onEvent }),
    });
    if (guardFailure !== undefined) {
      throw new RalphError('IO', `the guard service failed: ${guardFailure.message}`, {
        exitCode: 1,
        cause: guardFailure,
      });
    }
    return result;
  } finally {
    given.signal?.removeEventListener('abort', forward);
    await guard?.close();
  }
}

/** Why an agent run gave no usable answer, or undefined when it ended normally. */
export function agentFailure(result: AgentRunResult): string | undefined {
  if (result.spawnError !== undefined)
    return `the agent could not be started: ${result.spawnError}`;
  if (result.canceled) return 'interrupted';
  if (result.timedOut) return 'the agent timed out';
  if (result.result?.isError === true) {
    return `the agent ended with an error: ${result.result.resultText ?? result.result.subtype ?? 'unknown'}`;
  }
  if (result.exitCode !== 0 && result.result === undefined) {
    const tail = result.stderrTail.trim();
    return `the agent exited ${String(result.exitCode ?? result.exitSignal)}${tail === '' ? '' : `: ${tail}`}`;
  }
  return undefined;
}
