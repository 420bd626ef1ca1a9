import type { TaskListDocument } from '../plan/read.js';
import type { Story } from '../plan/types.js';
import { addTokens } from '../safety/budget.js';
import { classifyRun, type RunClassification } from '../safety/classify.js';
import { usageLimitWaitUntil } from '../safety/limits.js';
import { nextRetry } from '../safety/retry.js';
import type { PendingWait } from '../safety/store.js';
import { loopPaths } from '../state/paths.js';
import { removeTaskListSnapshot, writeTaskListSnapshot } from '../state/task-list-snapshot.js';
import type { LoopEvent, StoryRef } from './events.js';
import { beforeAgentStart, budgetGate, waitDeps } from './gates.js';
import { runIteration, type IterationReport, type IterationSetup } from './iteration.js';
import { interrupted, type LoopContext, type Stop } from './loop-types.js';
import { spendOf } from './safety-session.js';
import { iterationStart, judgedReport, verifyClaims } from './verify.js';
import { snapshotConfigs } from './config-guard.js';
import { waitUntil } from './waits.js';

/**
 * One iteration of the loop, attempt by attempt (issue 4, item 5): each attempt is one agent run
 * with its own log (iteration-N-attempt-M.jsonl). A transient failure runs the same iteration
 * again after a backoff; a usage limit leaves a pending wait that the next attempt's gate waits
 * out (or exits on); a fatal failure or Ctrl+C ends the run. The circuit breaker only counts an
 * iteration's last attempt.
 */

export interface IterationPlan {
  iteration: number;
  firstAttempt: number;
  story: Story;
  model: string | undefined;
  prompt: string;
  before: TaskListDocument;
}

export type AttemptsResult =
  | { kind: 'done'; report: IterationReport; document: TaskListDocument }
  /** `started`: some attempt of this iteration ran (now or in an earlier run), so it counts. */
  | { kind: 'stop'; stop: Stop; document: TaskListDocument; started: boolean };

type Next =
  | { kind: 'final' }
  | { kind: 'stop'; stop: Stop }
  | { kind: 'retry'; delayMs: number; detail: string }
  | { kind: 'after_limit' };

export async function runAttempts(
  ctx: LoopContext,
  setup: IterationSetup,
  plan: IterationPlan,
): Promise<AttemptsResult> {
  const { clock } = ctx.deps;
  const { iteration, story } = plan;
  const storyRef: StoryRef = { id: story.id, title: story.title };
  let document = plan.before;
  let retries = 0;
  for (let attempt = plan.firstAttempt; ; attempt += 1) {
    const gate = await beforeAgentStart(ctx, { iteration, attempt });
    if (gate !== undefined) return { kind: 'stop', stop: gate, document, started: attempt > 1 };
    const logFile = loopPaths(ctx.options.loopDir).iterationLog(iteration, attempt);
    await ctx.emit({
      type: 'iteration_started',
      at: ctx.at(),
      iteration,
      attempt,
      story: storyRef,
      model: plan.model,
      logFile,
      promptBytes: Buffer.byteLength(plan.prompt),
    });
    // Where the iteration's changes start, for test integrity: read before the agent can commit.
    const start = await iterationStart(ctx, plan.before);
    const configs = await snapshotConfigs(ctx.options.configFiles ?? []);
    // On disk, not only in memory: a kill of ralph while the agent rewrites the task list in
    // place leaves the next run a torn file and this to restore it from (task-list-recovery.ts).
    await writeTaskListSnapshot(ctx.options.loopDir, {
      file: document.file,
      iteration,
      attempt,
      takenAt: ctx.at(),
      text: document.text,
    });
    ctx.safety.callStarted(clock.now());
    // Agent output arrives while the process runs; reporters see it in order, without blocking it.
    let queued = Promise.resolve();
    let announced = false;
    const queue = (event: LoopEvent): void => {
      queued = queued.then(() => ctx.emit(event));
      // Handled here so a failing reporter cannot crash the process while the agent still runs;
      // `await queued` below rethrows it once the agent is done.
      queued.catch(() => undefined);
    };
    const claimed = await runIteration(setup, {
      before: document,
      story,
      model: plan.model,
      prompt: plan.prompt,
      logFile,
      onToolUse: (name, summary) => {
        queue({ type: 'agent_tool_use', at: ctx.at(), iteration, name, summary });
      },
      onText: (text) => {
        queue({ type: 'agent_text', at: ctx.at(), iteration, text });
      },
      onRetry: (retry) => {
        queue({
          type: 'agent_retry',
          at: ctx.at(),
          iteration,
          attempt,
          ...definedOnly({
            retry: retry.attempt,
            maxRetries: retry.maxRetries,
            delayMs: retry.delayMs,
            errorStatus: retry.errorStatus,
            error: retry.error,
          }),
        });
      },
      onInit: (sessionId, model) => {
        // Once per attempt: a long session can print init lines again (each would rewrite
        // status.json), and the first one already says what the monitors need.
        if (announced) return;
        announced = true;
        queue({
          type: 'agent_started',
          at: ctx.at(),
          iteration,
          attempt,
          ...(sessionId === undefined ? {} : { sessionId }),
          ...(model === undefined ? {} : { model }),
        });
      },
    });
    await queued;
    // The task list is settled (restored if the agent broke it): the snapshot has done its job.
    await removeTaskListSnapshot(ctx.options.loopDir);
    for (const path of await configs.restore()) {
      await ctx.emit({
        type: 'warning',
        at: ctx.at(),
        message: `the agent changed ${path}, which steers ralph's checks, guard or prompt; ralph put it back`,
      });
    }
    // The agent's passes are claims: ralph's checks, as the task list had them when the
    // iteration started, decide which of them stand.
    const verdict =
      claimed.newlyPassing.length > 0 && claimed.outcome !== 'canceled'
        ? await verifyClaims(ctx, {
            iteration,
            before: plan.before,
            after: claimed.after ?? document,
            claimed: claimed.newlyPassing,
            start,
          })
        : undefined;
    const report = verdict === undefined ? claimed : judgedReport(claimed, verdict);
    // (A verified story has moved the integrity base on to the tree it was verified on.)
    if (report.after !== undefined) document = report.after;
    await reportTaskListEvents(ctx, iteration, report);

    const result = report.agent.result;
    ctx.run.costUsd += result?.costUsd ?? 0;
    ctx.run.tokens = addTokens(ctx.run.tokens, result?.usage);
    ctx.safety.spend(story.id, result?.costUsd, result?.usage);
    ctx.safety.callFinished(result?.usage, clock.now());
    const reportedUsage = ctx.safety.recordUsage(report.agent.rateLimits, clock.now());
    const classification = classifyRun(report.agent, {
      now: clock.now(),
      // A getter: only a limit message with a reset time that names no zone reads it.
      get timeZone() {
        return ctx.timeZone();
      },
    });
    const next = nextAfterAttempt(ctx, plan, attempt, report, classification, retries);
    const final = next.kind === 'final';
    const transition = final
      ? ctx.safety.observeBreaker(
          {
            type: 'iteration',
            progress: report.newlyPassing.length > 0,
            error:
              report.outcome === 'error' || report.outcome === 'timeout'
                ? report.detail
                : undefined,
            deniedTools: (result?.permissionDenials ?? []).map((denial) => denial.toolName),
          },
          clock.now(),
        )
      : undefined;
    await ctx.safety.save(clock.now());
    if (reportedUsage) await emitUsageWindows(ctx);
    await emitFinished(ctx, { plan, storyRef, attempt, report, classification, next });
    if (transition !== undefined) {
      await ctx.emit({
        type: 'breaker_changed',
        at: ctx.at(),
        ...transition,
        breaker: ctx.safety.breaker(),
      });
    }

    if (next.kind === 'final') return { kind: 'done', report, document };
    if (next.kind === 'stop') return { kind: 'stop', stop: next.stop, document, started: true };
    const broke = await budgetGate(ctx, story, document);
    if (broke !== undefined) return { kind: 'stop', stop: broke, document, started: true };
    if (next.kind === 'retry') {
      retries += 1;
      const waited = await waitUntil(waitDeps(ctx), {
        reason: 'retry',
        until: new Date(clock.now().getTime() + next.delayMs),
        detail: next.detail,
        iteration,
        attempt: attempt + 1,
      });
      if (!waited)
        return {
          kind: 'stop',
          stop: interrupted('during a retry backoff'),
          document,
          started: true,
        };
    }
  }
}

/** What follows an attempt, from its outcome and classification: stop, retry, wait or go on. */
function nextAfterAttempt(
  ctx: LoopContext,
  plan: IterationPlan,
  attempt: number,
  report: IterationReport,
  classification: RunClassification,
  retries: number,
): Next {
  const progress = report.newlyPassing.length > 0;
  if (classification.kind !== 'usage_limit') ctx.safety.setUnknownResetStreak(0);
  if (report.outcome === 'canceled') return { kind: 'stop', stop: interrupted('') };
  switch (classification.kind) {
    case 'fatal':
      return {
        kind: 'stop',
        stop: {
          state: 'ERROR',
          reason: `fatal: ${classification.why}`,
          stopReason: 'fatal',
          exitCode: 2,
          hint: classification.hint,
        },
      };
    case 'usage_limit': {
      const { limit } = classification;
      const now = ctx.deps.clock.now();
      const streak = ctx.safety.unknownResetStreak();
      const { until, known } = usageLimitWaitUntil(limit, now, streak, ctx.settings.usageLimit);
      ctx.safety.setUnknownResetStreak(known ? 0 : streak + 1);
      // After progress the iteration is done; the wait then holds back the next one.
      const resumeAt = progress
        ? { iteration: plan.iteration + 1, attempt: 1 }
        : { iteration: plan.iteration, attempt: attempt + 1 };
      const pending: PendingWait = {
        ...resumeAt,
        storyId: plan.story.id,
        until: until.toISOString(),
        message: limit.message,
        source: limit.source,
        ...(limit.resetAt === undefined ? {} : { resetAt: limit.resetAt.toISOString() }),
        ...(limit.window === undefined ? {} : { window: limit.window }),
      };
      ctx.safety.setPendingWait(pending);
      return progress ? { kind: 'final' } : { kind: 'after_limit' };
    }
    case 'transient': {
      if (progress) return { kind: 'final' };
      const decision = nextRetry(retries, ctx.settings.retry, ctx.random);
      if (!decision.retry) return { kind: 'final' };
      return {
        kind: 'retry',
        delayMs: decision.delayMs,
        detail: `retry ${decision.retryNumber}/${ctx.settings.retry.maxRetries}: ${classification.why}`,
      };
    }
    default:
      return { kind: 'final' };
  }
}

/** The usage windows as safety.json now holds them, for status.json and the monitors. */
export async function emitUsageWindows(ctx: LoopContext): Promise<void> {
  const windows = Object.fromEntries(
    Object.entries(ctx.safety.usageWindows()).map(([name, window]) => [
      name,
      definedOnly({
        utilization: window.utilization,
        resetsAt: window.resetsAt,
        status: window.status,
      }),
    ]),
  );
  const pace = ctx.settings.pace;
  await ctx.emit({ type: 'usage_windows', at: ctx.at(), windows, ...(pace > 0 ? { pace } : {}) });
}

/** The object without its undefined fields (events leave absent fields out). */
function definedOnly<T extends Record<string, unknown>>(
  fields: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

async function emitFinished(
  ctx: LoopContext,
  input: {
    plan: IterationPlan;
    storyRef: StoryRef;
    attempt: number;
    report: IterationReport;
    classification: RunClassification;
    next: Next;
  },
): Promise<void> {
  const { report, plan } = input;
  const after = report.after ?? plan.before;
  const passing = after.taskList.stories.filter((story) => story.passes).length;
  const agent = report.agent;
  await ctx.emit({
    type: 'iteration_finished',
    at: ctx.at(),
    iteration: plan.iteration,
    attempt: input.attempt,
    story: input.storyRef,
    outcome: report.outcome,
    detail: report.detail,
    signal: report.signal,
    newlyPassing: report.newlyPassing,
    storiesPassing: passing,
    storiesTotal: after.taskList.stories.length,
    sessionId: agent.sessionId ?? agent.result?.sessionId,
    model: agent.model ?? plan.model,
    costUsd: agent.result?.costUsd,
    usage: agent.result?.usage,
    numTurns: agent.result?.numTurns,
    exitCode: agent.exitCode,
    durationMs: agent.durationMs,
    classification: input.classification.kind,
    classificationWhy: input.classification.why,
    willRetry: input.next.kind === 'retry' || input.next.kind === 'after_limit',
    ...(input.next.kind === 'final' ? { breaker: ctx.safety.breaker() } : {}),
    storySpend: spendOf(ctx.safety.storySpending(plan.story.id)),
    runSpend: spendOf(ctx.run),
    callsLastHour: ctx.safety.checkRate(ctx.deps.clock.now()).calls,
    deniedTools: (agent.result?.permissionDenials ?? []).map((denial) => denial.toolName),
  });
}

async function reportTaskListEvents(
  ctx: LoopContext,
  iteration: number,
  report: IterationReport,
): Promise<void> {
  if (report.restored !== undefined) {
    await ctx.emit({ type: 'task_list_restored', at: ctx.at(), iteration, ...report.restored });
  }
  if (report.completeNotBelieved !== undefined) {
    await ctx.emit({
      type: 'complete_not_believed',
      at: ctx.at(),
      iteration,
      openStories: report.completeNotBelieved,
    });
  }
}
