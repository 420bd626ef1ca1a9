import type { TaskListDocument } from '../plan/read.js';
import type { Story } from '../plan/types.js';
import { checkBudget, usd } from '../safety/budget.js';
import type { PendingWait } from '../safety/store.js';
import { paceDecision } from '../safety/usage-windows.js';
import type { LoopContext, Stop, UsageLimitAnswer } from './loop-types.js';
import { interrupted } from './loop-types.js';
import { waitUntil, type WaitDeps } from './waits.js';

/**
 * What must hold before an agent starts: no usage-limit wait pending (else wait, exit or ask)
 * and room in the hourly rate window (else wait); and, checked before each iteration and each
 * retry, budget left. Each returns a Stop when the run has to end instead.
 */

export async function beforeAgentStart(
  ctx: LoopContext,
  next: { iteration: number; attempt: number },
): Promise<Stop | undefined> {
  const pending = ctx.safety.pendingWait();
  if (pending !== undefined) {
    const stop = await usageLimitGate(ctx, pending, next);
    if (stop !== undefined) return stop;
  }
  const paced = await paceGate(ctx, next);
  if (paced !== undefined) return paced;
  const decision = ctx.safety.checkRate(ctx.deps.clock.now());
  if (!decision.allowed) {
    const waited = await waitUntil(waitDeps(ctx), {
      reason: 'rate_limit',
      until: decision.until,
      detail: `rate limit: ${decision.reason}`,
      ...next,
    });
    if (!waited) return interrupted('during a rate-limit wait');
  }
  return undefined;
}

/**
 * limits.pace: a usage window at or above the threshold holds the next agent back until that
 * window resets, through the usage-limit wait (its countdown, Ctrl+C, the injected clock).
 * Pacing is asked for, so it waits whatever --on-usage-limit says.
 */
async function paceGate(
  ctx: LoopContext,
  next: { iteration: number; attempt: number },
): Promise<Stop | undefined> {
  const decision = paceDecision(
    ctx.safety.usageWindows(),
    ctx.settings.pace,
    ctx.deps.clock.now(),
    ctx.settings.usageLimit.marginMs,
  );
  if (!decision.wait) return undefined;
  const waited = await waitUntil(waitDeps(ctx), {
    reason: 'usage_limit',
    until: decision.until,
    detail: decision.detail,
    ...next,
  });
  return waited ? undefined : interrupted('during a pacing wait');
}

async function usageLimitGate(
  ctx: LoopContext,
  pending: PendingWait,
  next: { iteration: number; attempt: number },
): Promise<Stop | undefined> {
  const until = new Date(pending.until);
  const resetAt = pending.resetAt === undefined ? undefined : new Date(pending.resetAt);
  if (until <= ctx.deps.clock.now()) {
    ctx.safety.setPendingWait(undefined);
    await ctx.safety.save(ctx.deps.clock.now());
    return undefined;
  }
  const { action, answered } = await chooseUsageLimitAction(ctx, pending, until, resetAt);
  if (ctx.deps.signal.aborted) return interrupted('while asking about a usage limit');
  await ctx.emit({
    type: 'usage_limit',
    at: ctx.at(),
    iteration: pending.iteration,
    attempt: pending.attempt,
    source: pending.source,
    message: pending.message,
    resetAt: pending.resetAt,
    window: pending.window,
    action,
    ...(answered === undefined ? {} : { answered }),
  });
  const when = (resetAt ?? until).toISOString();
  if (action === 'exit') {
    return {
      state: 'PAUSED',
      reason: `usage limit reached (${pending.message}); it resets ${resetAt === undefined ? 'at an unknown time' : `at ${when}`}`,
      stopReason: 'usage_limit',
      exitCode: 2,
      hint: `Run \`ralph run\` again after ${until.toISOString()} (or now with --on-usage-limit wait: ralph waits and resumes ${pending.storyId}).`,
    };
  }
  const waited = await waitUntil(waitDeps(ctx), {
    reason: 'usage_limit',
    until,
    detail: `usage limit: ${pending.message} (${resetAt === undefined ? 'reset time unknown: backing off' : `resets ${when}`})`,
    ...next,
  });
  if (!waited) return interrupted('during a usage-limit wait');
  ctx.safety.setPendingWait(undefined);
  await ctx.safety.save(ctx.deps.clock.now());
  return undefined;
}

/** Wait for the reset or end the run: the configured action, or the person's answer to `ask`. */
async function chooseUsageLimitAction(
  ctx: LoopContext,
  pending: PendingWait,
  until: Date,
  resetAt: Date | undefined,
): Promise<{ action: UsageLimitAnswer; answered: boolean | undefined }> {
  const { action, askTimeoutMs } = ctx.settings.usageLimit;
  if (action !== 'ask') return { action, answered: undefined };
  const ask = ctx.deps.askUsageLimit;
  if (ask === undefined) return { action: 'exit', answered: false };
  const giveUp = new AbortController();
  const stopAsking = (): void => {
    giveUp.abort();
  };
  ctx.deps.signal.addEventListener('abort', stopAsking, { once: true });
  try {
    const answer = await Promise.race([
      ask({ message: pending.message, resetAt, until }, giveUp.signal),
      ctx.deps.clock.sleep(askTimeoutMs, giveUp.signal).then(() => undefined),
    ]);
    // Anything but a clear "wait" (a caller's function may return what it likes) means exit.
    if (answer !== 'wait' && answer !== 'exit') return { action: 'exit', answered: false };
    return { action: answer, answered: true };
  } finally {
    giveUp.abort();
    ctx.deps.signal.removeEventListener('abort', stopAsking);
  }
}

/** The run's or the story's budget, if spent; emits budget_exceeded and says how to stop. */
export async function budgetGate(
  ctx: LoopContext,
  story: Story,
  document: TaskListDocument,
): Promise<Stop | undefined> {
  const exceeded = checkBudget({
    runCostUsd: ctx.run.costUsd,
    limits: ctx.settings.budget,
    storyId: story.id,
    storyCostUsd: ctx.safety.storySpending(story.id).costUsd,
    storyLimitUsd: storyCostLimit(document, story),
  });
  if (exceeded === undefined) return undefined;
  await ctx.emit({ type: 'budget_exceeded', at: ctx.at(), ...exceeded });
  return {
    state: 'REACHED_LIMIT',
    reason: `budget: ${exceeded.message}`,
    stopReason: 'budget',
    exitCode: 1,
    hint:
      exceeded.scope === 'run'
        ? `Raise --max-cost (budget.maxCostUsd) above ${usd(exceeded.spentUsd)} to go on.`
        : `Raise budget.maxStoryCostUsd (or the story's own maxCostUsd) above ${usd(exceeded.spentUsd)} to go on.`,
  };
}

/** A story's own `maxCostUsd` field in the task list, if it has one (plan ignores it). */
export function storyCostLimit(document: TaskListDocument, story: Story): number | undefined {
  let node: unknown;
  try {
    node = JSON.parse(document.text) as unknown;
  } catch {
    return undefined;
  }
  for (const step of [...document.storiesPath, story.index]) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  if (typeof node !== 'object' || node === null || !('maxCostUsd' in node)) return undefined;
  const limit = node.maxCostUsd;
  return typeof limit === 'number' && Number.isFinite(limit) && limit >= 0 ? limit : undefined;
}

export function waitDeps(ctx: LoopContext): WaitDeps {
  return { clock: ctx.deps.clock, signal: ctx.deps.signal, emit: (event) => ctx.emit(event) };
}
