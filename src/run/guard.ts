import { canBindToParentLife } from '../agents/parent-death.js';
import type { ProcessGroups } from '../agents/process-groups.js';
import type { LoopOptions } from '../core/engine.js';
import {
  GUARD_TOKEN_VARIABLE,
  httpGuardHook,
  livenessHook,
  withGuardHooks,
} from '../guard/hook-settings.js';
import { resolvePolicy, type GuardSettings } from '../guard/policy.js';
import {
  GUARD_PATH,
  startGuardService,
  type GuardDecision,
  type GuardService,
} from '../guard/service.js';
import { findGitRepo } from '../state/git.js';
import { loopPaths } from '../state/paths.js';

/**
 * The guard of `ralph run`: the policy served in-process on 127.0.0.1 and installed in every
 * iteration through `--settings` as an HTTP PreToolUse hook.
 *
 * Fail-closed by construction, because Claude Code runs the tool when an HTTP hook cannot be
 * reached (measured): the service lives in ralph's process, and the agent cannot outlive it —
 *  - ralph dies (SIGKILL, OOM, crash): the kernel kills the agent (`setpriv --pdeathsig KILL`,
 *    agents/parent-death.ts) before it can make another request;
 *  - the service fails while ralph lives (the server closes or errors): every agent process
 *    group gets SIGKILL at once, then the run stops (state PAUSED, resumable);
 *  - no setpriv (not Linux): a second, command hook refuses every tool call once ralph's pid is
 *    gone;
 *  - the service itself answers every request with 200 and a decision, deny when in doubt.
 */

export interface RunGuard {
  /** The options (a loop's, or one agent session's) with the hook in `settings` and the token in the agent's env. */
  apply<T extends Pick<LoopOptions, 'settings' | 'env'>>(options: T): T;
  /** Set when the guard service failed and the agent was stopped. */
  failure(): Error | undefined;
  denials(): number;
  close(): Promise<void>;
  service: GuardService;
}

export interface RunGuardInput {
  cwd: string;
  homeDir: string;
  loopDir: string;
  settings: GuardSettings & { enabled?: boolean | undefined };
  /** The run's agents: killed at once when the service fails. */
  processGroups: ProcessGroups;
  onFailure: (error: Error) => void;
  onDecision?: (decision: GuardDecision) => void;
}

export async function startRunGuard(input: RunGuardInput): Promise<RunGuard | undefined> {
  const { settings, loopDir, onFailure, onDecision } = input;
  if (settings.enabled === false) return undefined;
  const repo = await findGitRepo(input.cwd).catch(() => undefined);
  const policy = resolvePolicy({
    projectRoot: repo?.root ?? input.cwd,
    homeDir: input.homeDir,
    loopDir,
    settings,
    unattended: true,
    // Scripts already there when the run began are the person's, not the agent's (a margin of
    // 2 s for file systems with coarse timestamps).
    scriptsChangedSince: Date.now() - 2000,
  });
  let denied = 0;
  let failed: Error | undefined;
  const service = await startGuardService({
    policy,
    auditLog: loopPaths(loopDir).auditLog,
    timeBudgetMs: settings.timeBudgetMs,
    onDecision: (decision) => {
      if (decision.decision !== 'allow') denied += 1;
      onDecision?.(decision);
    },
  });
  service.onFailure((error) => {
    failed = error;
    // No tool call may run unchecked: the agents go first, the run stops after.
    input.processGroups.signalAll('SIGKILL');
    onFailure(error);
  });
  const hooks = guardHooks(service.url);
  return {
    service,
    apply: (options) => ({
      ...options,
      settings: withGuardHooks(options.settings, hooks),
      env: { ...options.env, [GUARD_TOKEN_VARIABLE]: service.token },
    }),
    failure: () => failed,
    denials: () => denied,
    close: () => service.close(),
  };
}

function guardHooks(url: string): Record<string, unknown>[] {
  const hooks = [httpGuardHook(url)];
  if (!canBindToParentLife()) hooks.push(livenessHook(process.pid));
  return hooks;
}

/**
 * The Claude settings a run would pass, for `--dry-run`: the guard's hooks included (the
 * service's port is only known once it listens, so a placeholder stands for it).
 */
export function dryRunSettings(
  guard: { enabled?: boolean | undefined },
  settings: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (guard.enabled === false) return settings;
  return withGuardHooks(settings, guardHooks(`http://127.0.0.1:<port>${GUARD_PATH}`));
}
