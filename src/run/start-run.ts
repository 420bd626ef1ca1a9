import { randomUUID } from 'node:crypto';
import {
  RUN_ID_VARIABLE,
  stopRunProcesses,
  stoppingLeftoversAfterEachSession,
} from '../agents/orphans.js';
import { runLoop, type LoopResult } from '../core/engine.js';
import { codeHooks, composeHooks } from '../hooks/code-hooks.js';
import { scriptHooks } from '../hooks/script-hooks.js';
import { checkRunner } from './check-runner.js';
import { userStateDir } from '../state/user-state.js';
import { systemClock } from '../safety/clock.js';
import { archiveLoop } from '../state/archive.js';
import { sweepLeftoverTemps } from '../state/leftover-temps.js';
import { acquireLock } from '../state/lock.js';
import { storageError } from '../util/storage-errors.js';
import { startRunGuard } from './guard.js';
import { stopLeftovers } from './leftovers.js';
import type { RunOptions } from './options.js';
import { planRun, previousRun, type RunPlan } from './plan.js';
import { runReporters } from './reporters.js';

/** How a run ended. Expected endings are results; only invalid input or broken state throws. */
export interface RunResult {
  status: LoopResult['state'];
  stopReason: LoopResult['stopReason'];
  /** One sentence for a person. */
  reason: string;
  hint?: string | undefined;
  /** What `ralph run` exits with (design.md §4). */
  exitCode: number;
  /** The loop directory's iteration count when the run ended. */
  iterations: number;
  costUsd: number;
  loopDir: string;
  /** Every process this run started carries it in RALPH_RUN_ID. */
  runId: string;
  /** Set when this run completed the feature and copied it into DIR/archive/. */
  archivedTo?: string | undefined;
}

/**
 * Runs a loop to its end, as `ralph run` does (design.md §7): config and preflight, the loop
 * directory's lock, resume, leftovers of a dead run, the guard service, the state files, the
 * person's hooks and notifications, usage-limit waits, and the archive of a finished feature.
 * Aborting `signal` pauses the run (state PAUSED, exit code 130, resumable). Throws a RalphError
 * (with a stable code) for what a person must fix first: bad options or config, a failed
 * preflight, a loop directory another run holds.
 */
export async function startRun(options: RunOptions): Promise<RunResult> {
  return launchRun(await planRun(options));
}

/** Starts a planned run (planRun): for callers that look at the plan first, like `--dry-run`. */
export async function launchRun(plan: RunPlan): Promise<RunResult> {
  const { loopDir } = plan.options;
  const runId = randomUUID();
  // Aborted before it began (during preflight, say): nothing was started, and nothing is written.
  if (plan.given.signal?.aborted === true) return notStarted(plan, runId);
  const lock = await acquireLock(loopDir, {
    pid: process.pid,
    command: `ralph run ${loopDir}`,
    now: (plan.given.clock ?? systemClock).now(),
    runId,
  });
  let failed = false;
  try {
    const swept = await sweepLeftoverTemps(loopDir);
    const warnings = [...lock.warnings, ...stopLeftovers(lock.tookOver), ...swept];
    return await runGuarded(plan, runId, warnings);
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    plan.sandbox?.dispose();
    // On a filesystem that turned read-only the lock cannot be removed; the run's own error
    // says why, and the next run takes the dead lock over.
    await lock.release().catch((error: unknown) => {
      if (!failed) throw storageError(error) ?? error;
    });
  }
}

/** The run itself, once it holds the loop directory: the guard service lives exactly as long. */
async function runGuarded(plan: RunPlan, runId: string, warnings: string[]): Promise<RunResult> {
  const { given, processGroups } = plan;
  const { loopDir } = plan.options;
  const clock = given.clock ?? systemClock;
  const log = given.log ?? (() => undefined);
  // Read the resume point again now that no other run can change it underneath us.
  const { resume, lastIteration } = await previousRun(loopDir, warnings);
  // Everything this run starts carries the id, so a later run can find what outlives it.
  const env = { ...plan.options.env, [RUN_ID_VARIABLE]: runId };
  const stopping = new AbortController();
  const signal =
    given.signal === undefined ? stopping.signal : AbortSignal.any([given.signal, stopping.signal]);
  const guard = await startRunGuard({
    cwd: plan.options.cwd,
    homeDir: plan.homeDir,
    loopDir,
    settings: plan.guard,
    processGroups,
    onFailure: (error) => {
      log(`ralph: the guard service failed (${error.message}); stopped the agent`);
      stopping.abort();
    },
  });
  const reporters = runReporters(plan, log);
  try {
    const unguarded = {
      ...plan.options,
      env,
      // Outside the work tree: the integrity base and test counts the agent must not rewrite.
      stateDir: userStateDir(plan.options.env, plan.homeDir),
      resume,
      lastIteration,
      warnings: [...new Set([...plan.warnings, ...warnings])],
    };
    const result = await runLoop(guard === undefined ? unguarded : guard.apply(unguarded), {
      // What the agent left running is stopped before ralph's checks run.
      agent: stoppingLeftoversAfterEachSession(plan.agent, runId),
      reporters: reporters.all,
      clock,
      signal,
      askUsageLimit: given.askUsageLimit,
      hooks: userHooks(plan, env, log),
      // The checks get ralph's environment, like the hooks: not the agent's guard token.
      runCheck: checkRunner({
        env,
        processGroups,
        wrap:
          plan.sandbox === undefined
            ? undefined
            : (file, args) => plan.sandbox?.wrap(file, args) ?? { file, args },
      }),
    });
    // Archive a feature once, when this run finished it: not again on every later run.
    const finishedNow = result.iterations > (resume?.iteration ?? lastIteration);
    const archive = result.state === 'COMPLETE' && given.archive !== false && finishedNow;
    const archivedTo = archive
      ? await archiveLoop(loopDir, { feature: plan.options.feature, now: clock.now() })
      : undefined;
    return {
      status: result.state,
      stopReason: result.stopReason,
      reason: result.reason,
      ...(result.hint === undefined ? {} : { hint: result.hint }),
      exitCode: result.exitCode,
      iterations: result.iterations,
      costUsd: result.costUsd,
      loopDir,
      runId,
      ...(archivedTo === undefined ? {} : { archivedTo }),
    };
  } catch (caught) {
    // A write of ralph's own state that the filesystem refused (full, read-only, no permission)
    // anywhere in the run: named with its path and fix, and the run is PAUSED, not a bug.
    const error = storageError(caught) ?? caught;
    await reporters.recordFailure(error, clock);
    throw error;
  } finally {
    await guard?.close();
    // What escaped its process group (setsid) is found by the run id every process carries.
    stopRunProcesses(runId);
  }
}

/**
 * The hooks of the run: those registered in code (startRun's `hooks`) first, as the spec orders
 * them, then the person's scripts in DIR/hooks/ when config `hooks.enabled` says so.
 */
function userHooks(
  plan: RunPlan,
  env: Record<string, string | undefined>,
  log: (line: string) => void,
) {
  const timeoutMs = plan.config.hooks.timeoutSeconds * 1000;
  const inCode =
    plan.given.hooks === undefined ? undefined : codeHooks(plan.given.hooks, { timeoutMs });
  if (!plan.config.hooks.enabled) return inCode;
  const scripts = scriptHooks({
    loopDir: plan.options.loopDir,
    cwd: plan.options.cwd,
    // Not the agent's environment: the guard's token stays with the agent.
    env,
    timeoutMs,
    output: (point, line) => {
      log(`ralph: hook ${point}: ${line}`);
    },
  });
  return composeHooks(inCode, scripts);
}

async function notStarted(plan: RunPlan, runId: string): Promise<RunResult> {
  const { resume, lastIteration } = await previousRun(plan.options.loopDir, []);
  return {
    status: 'PAUSED',
    stopReason: 'interrupted',
    reason: 'interrupted before the run started',
    exitCode: 130,
    iterations: lastIteration,
    costUsd: resume?.costUsd ?? 0,
    loopDir: plan.options.loopDir,
    runId,
  };
}
