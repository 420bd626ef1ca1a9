import { nextStory, summarise } from '../plan/order.js';
import { readTaskListFile } from '../plan/read.js';
import type { Story } from '../plan/types.js';
import { ZERO_TOKENS } from '../safety/budget.js';
import { localTimeZone } from '../safety/reset-time.js';
import { DEFAULT_SAFETY } from '../safety/settings.js';
import { RalphError } from '../util/errors.js';
import { isStorageError, storageError } from '../util/storage-errors.js';
import { runAttempts } from './attempt.js';
import { recoverTaskList } from './task-list-recovery.js';
import type { BreakerSnapshot, LoopEvent } from './events.js';
import { budgetGate } from './gates.js';
import type { IterationSetup } from './iteration.js';
import type { LoopContext, LoopDependencies, LoopOptions, LoopResult, Stop } from './loop-types.js';
import { interrupted } from './loop-types.js';
import { selectModel } from './model-select.js';
import { iterationPrompt } from './iteration-prompt.js';
import { memoriesForPrompt, tidyMemories } from './memory-upkeep.js';
import { overBudgetWarning } from './prompt-budget.js';
import { openSafetySession, type SafetySession } from './safety-session.js';
import { pivotFor } from './pivot.js';
import { verifyUnjudgedPasses } from './unjudged-passes.js';
import { finalQualityCheck } from './verify.js';
import { callEndUserHooks, callUserHook, iterationVariables } from './user-hooks.js';

export type {
  CheckRun,
  CheckRunner,
  LoopDependencies,
  LoopOptions,
  LoopResult,
  VerificationSettings,
  UsageLimitAnswer,
  UsageLimitQuestion,
} from './loop-types.js';

/**
 * The loop (design.md §1): one fresh agent process per iteration, one story each, until every
 * story passes or a limit is reached. Expected endings are results, never exceptions; the only
 * throws are failures to read or write ralph's own state, which must not be papered over.
 * Around each iteration the safety policies (issue 4) decide: the breaker and the budget before
 * it starts, the rate limit and a pending usage-limit wait before each agent (gates.ts),
 * retries between attempts (attempt.ts), and the breaker again after it.
 */
export async function runLoop(options: LoopOptions, deps: LoopDependencies): Promise<LoopResult> {
  const settings = options.safety ?? DEFAULT_SAFETY;
  const emit = async (event: LoopEvent): Promise<void> => {
    for (const reporter of deps.reporters) await reporter.onEvent(event);
  };
  const at = (): string => deps.clock.now().toISOString();
  let zone = deps.timeZone;
  const safety = await openSafetySession(options.loopDir, settings, deps.clock.now());
  const ctx: LoopContext = {
    options,
    deps,
    settings,
    safety,
    emit,
    at,
    integrityBase: {},
    run: {
      costUsd: options.resume?.costUsd ?? 0,
      tokens: { ...(options.resume?.tokens ?? ZERO_TOKENS) },
    },
    timeZone: () => (zone ??= localTimeZone()),
    random: deps.random ?? Math.random,
  };
  // The loop directory's iteration count so far; `iteration` below may step back one to redo
  // an iteration whose usage-limit wait a restart interrupted, but the count stays.
  const iterationsSoFar = options.resume?.iteration ?? options.lastIteration ?? 0;
  let iteration = iterationsSoFar;
  // A task list torn by a kill of an earlier run mid-iteration comes back from its snapshot.
  const recovered = await recoverTaskList(options.loopDir, options.taskListFile);
  let document = await readTaskListFile(options.taskListFile);

  // A usage-limit wait interrupted by a restart resumes the same iteration at its next attempt.
  const pending = safety.pendingWait();
  let firstAttempt = 1;
  if (pending !== undefined && options.resume?.iteration === pending.iteration) {
    iteration = pending.iteration - 1;
    firstAttempt = pending.attempt;
  }

  // -n counts the iterations of this run; the numbering itself goes on across runs.
  const lastAllowed = iteration + options.maxIterations;

  const transitions = [
    ...(settings.resetBreaker ? [safety.observeBreaker({ type: 'reset' }, deps.clock.now())] : []),
    safety.observeBreaker({ type: 'run_start' }, deps.clock.now()),
  ].filter((each) => each !== undefined);
  if (transitions.length > 0) await safety.save(deps.clock.now());

  const start = summarise(document.taskList);
  await emit({
    type: 'run_started',
    at: at(),
    loopDir: options.loopDir,
    feature: options.feature,
    resumedAfterIteration: options.resume?.iteration ?? 0,
    iteration: iterationsSoFar,
    maxIterations: lastAllowed,
    storiesTotal: start.total,
    storiesPassing: start.passing,
    costUsd: ctx.run.costUsd,
    tokens: ctx.run.tokens,
    breaker: safety.breaker(),
    rateLimit: {
      callsPerHour: positive(settings.rateLimit.callsPerHour),
      tokensPerHour: positive(settings.rateLimit.tokensPerHour),
    },
  });
  // Through the event stream, so events.jsonl, --json and the monitors see them too.
  for (const message of options.warnings ?? []) await emit({ type: 'warning', at: at(), message });
  if (recovered !== undefined) {
    await emit({ type: 'task_list_restored', at: at(), ...recovered, atRunStart: true });
  }
  for (const transition of transitions) {
    await emit({ type: 'breaker_changed', at: at(), ...transition, breaker: safety.breaker() });
  }
  await callUserHook(ctx, 'pre_run');
  // A claim an earlier run was killed before judging is judged now, before the loop trusts it.
  document = await verifyUnjudgedPasses(ctx, document, iterationsSoFar);

  const finish = async (ended: Stop): Promise<LoopResult> => {
    const summary = summarise(document.taskList);
    // However the run ends, the stories ralph gave up on are named (parkedStop names them itself).
    const parked = summary.parked.map((story) => story.id);
    const stop =
      parked.length === 0 || ended.stopReason === 'blocked'
        ? ended
        : { ...ended, reason: `${ended.reason}; parked: ${parked.join(', ')}` };
    await emit({
      type: 'run_finished',
      at: at(),
      state: stop.state,
      reason: stop.reason,
      stopReason: stop.stopReason,
      ...(stop.hint === undefined ? {} : { hint: stop.hint }),
      exitCode: stop.exitCode,
      iterations: iteration,
      storiesPassing: summary.passing,
      storiesTotal: summary.total,
      costUsd: ctx.run.costUsd,
      tokens: ctx.run.tokens,
    });
    // After run_finished, so status.json is final while the person's hooks run.
    await callEndUserHooks(ctx, stop, iteration);
    for (const reporter of deps.reporters) await reporter.close?.();
    return { ...stop, iterations: iteration, costUsd: ctx.run.costUsd };
  };

  const opened = breakerStop(safety.breaker());
  if (opened !== undefined) return finish(opened);

  const setup: IterationSetup = {
    agent: deps.agent,
    cwd: options.cwd,
    env: options.env,
    permission: options.permission,
    settings: options.settings,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: settings.idleTimeoutMs,
    resultGraceMs: settings.resultGraceMs,
    maxLineBytes: settings.maxLineBytes,
    completionPatterns: options.completionPatterns,
    completionPromise: options.completionPromise,
    signal: deps.signal,
  };
  // Said once per story: its prompt stays over budget on every attempt.
  const overBudgetSaid = new Set<string>();

  for (;;) {
    if (deps.signal.aborted) return finish(interrupted(''));
    // The person may edit the task list between iterations (add a story, fix a criterion):
    // each iteration starts from the file as it is now, never from ralph's copy.
    try {
      document = await readTaskListFile(options.taskListFile, document);
    } catch (caught) {
      const error = storageError(caught) ?? caught;
      if (!(error instanceof RalphError)) throw error;
      return finish(stateError(error));
    }
    const summary = summarise(document.taskList);
    if (summary.total > 0 && summary.passing === summary.total) {
      return finish((await finalQualityCheck(ctx, iteration)) ?? (await completed(safety, deps)));
    }
    if (iteration >= lastAllowed) {
      return finish({
        state: 'REACHED_LIMIT',
        reason: `max iterations reached (${options.maxIterations} in this run)`,
        stopReason: 'max_iterations',
        exitCode: 1,
      });
    }
    const story = nextStory(document.taskList);
    if (story === undefined) {
      if (summary.parked.length > 0) return finish(parkedStop(summary.parked));
      const waiting = summary.blocked.map(
        (each) => `${each.id} (dependsOn ${each.dependsOn.join(', ')})`,
      );
      return finish({
        state: 'ERROR',
        reason: `no story can start: ${waiting.join('; ') || 'the task list is empty'}`,
        stopReason: 'blocked',
        exitCode: 1,
      });
    }
    const overBudget = await budgetGate(ctx, story, document);
    if (overBudget !== undefined) return finish(overBudget);

    iteration += 1;
    const chosen = selectModel(story, document.taskList, options.models).model;
    const pivot = await pivotFor(ctx, story, chosen);
    if (pivot !== undefined) {
      await emit({
        type: 'warning',
        at: at(),
        message: `${story.id} was rejected ${pivot.rejections} times: a fresh diagnosis${
          pivot.model === chosen ? '' : ` on ${pivot.model ?? 'the default model'}`
        }, led by the last failure`,
      });
    }
    const model = pivot?.model ?? chosen;
    const memories = await memoriesForPrompt(ctx, story);
    const { prompt, size } = await iterationPrompt(options, story, pivot?.lead, memories);
    if (size.overBudget && !overBudgetSaid.has(story.id)) {
      overBudgetSaid.add(story.id);
      await emit({ type: 'warning', at: at(), message: overBudgetWarning(story.id, size) });
    }
    await callUserHook(ctx, 'pre_iteration', iterationVariables(iteration, story));
    let outcome;
    try {
      outcome = await runAttempts(ctx, setup, {
        iteration,
        firstAttempt,
        story,
        model,
        prompt,
        before: document,
      });
    } catch (caught) {
      // A problem a person must fix (e.g. a story names an MCP server that is configured
      // nowhere, a full disk) ends the run cleanly, with its state written, instead of leaving
      // it RUNNING.
      const error = storageError(caught) ?? caught;
      if (!(error instanceof RalphError)) throw error;
      return finish(stateError(error));
    }
    firstAttempt = 1;
    document = outcome.document;
    // Stopped before its agent ever started (a wait interrupted, the budget): not an iteration.
    const ran = outcome.kind === 'done' || outcome.started;
    if (!ran) iteration -= 1;
    else await tidyMemories(ctx);
    // Read through a call: TypeScript would keep the loop top's narrowing across the awaits.
    if (ran && !isAborted(deps.signal)) {
      await callUserHook(ctx, 'post_iteration', {
        ...iterationVariables(iteration, story),
        RALPH_ITERATION_OUTCOME:
          outcome.kind === 'stop' ? outcome.stop.stopReason : outcome.report.outcome,
      });
    }
    if (outcome.kind === 'stop') return finish(outcome.stop);
    const tripped = breakerStop(safety.breaker());
    if (tripped !== undefined) return finish(tripped);
    if (outcome.report.outcome === 'complete') {
      return finish((await finalQualityCheck(ctx, iteration)) ?? (await completed(safety, deps)));
    }
    await deps.clock.sleep(options.pauseMs, deps.signal);
  }
}

/** Every story that could still run is parked: the run ends, naming them and why. */
function parkedStop(parked: readonly Story[]): Stop {
  return {
    state: 'ERROR',
    reason: `parked stories: ${parked.map((each) => `${each.id} (${each.blocked ?? 'blocked'})`).join('; ')}`,
    stopReason: 'blocked',
    exitCode: 1,
    hint: '`ralph evidence STORY` shows each rejection; fix what fails (or the story), remove its "blocked" field and run again.',
  };
}

/** What ralph runs before it believes `story` is done, for the prompt to say. */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

function stateError(error: RalphError): Stop {
  // A full disk, a read-only mount, a lost permission: nothing is wrong with the loop, and the
  // next run resumes it once the person has fixed the disk (util/storage-errors.ts).
  const storage = isStorageError(error);
  return {
    state: storage ? 'PAUSED' : 'ERROR',
    reason: error.message,
    stopReason: storage ? 'fatal' : 'invalid_input',
    exitCode: error.exitCode,
    ...(error.hint === undefined ? {} : { hint: error.hint }),
  };
}

function positive(limit: number | undefined): number | undefined {
  return limit !== undefined && limit > 0 ? limit : undefined;
}

function breakerStop(breaker: BreakerSnapshot): Stop | undefined {
  if (breaker.state !== 'OPEN') return undefined;
  const until = breaker.cooldownUntil;
  return {
    state: 'ERROR',
    reason: `circuit breaker open: ${breaker.reason ?? 'no reason recorded'}`,
    stopReason: 'breaker',
    exitCode: 1,
    hint: `Look at the last iterations (ralph inspect DIR/logs/…), fix what keeps failing, then run \`ralph run --reset-breaker\`${
      until === undefined ? '' : `; or run again after ${until} to give it one half-open try`
    }.`,
  };
}

/** A finished feature leaves no usage-limit wait behind for the loop directory's next run. */
async function completed(safety: SafetySession, deps: LoopDependencies): Promise<Stop> {
  if (safety.pendingWait() !== undefined) {
    safety.setPendingWait(undefined);
    await safety.save(deps.clock.now());
  }
  return {
    state: 'COMPLETE',
    reason: 'every story passes',
    stopReason: 'complete',
    exitCode: 0,
  };
}
