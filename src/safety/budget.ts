import * as z from 'zod';

/**
 * The budget (issue 4, item 3): what the agent cost, per story (persisted: a story's spending
 * survives restarts) and per run, from the `total_cost_usd` Claude Code reports, and whether a
 * limit is crossed. Crossing one ends the run cleanly; the engine decides how.
 */

/** Token counts by kind; the same field names as the agent port's TokenUsage. */
export interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

export const tokenCountsSchema = z.object({
  inputTokens: z.number().min(0),
  outputTokens: z.number().min(0),
  cacheReadInputTokens: z.number().min(0),
  cacheCreationInputTokens: z.number().min(0),
});

export const ZERO_TOKENS: TokenCounts = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadInputTokens: 0,
  cacheCreationInputTokens: 0,
};

export function addTokens(a: TokenCounts, b: TokenCounts | undefined): TokenCounts {
  if (b === undefined) return a;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens,
    cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
  };
}

/**
 * The tokens that count against a tokens-per-hour limit: everything the API processed fresh.
 * Cache reads are left out: they are cheap, do not count toward the API's own input limits,
 * and would otherwise dominate (a long session re-reads its context every turn).
 */
export function billableTokens(tokens: TokenCounts | undefined): number {
  if (tokens === undefined) return 0;
  return tokens.inputTokens + tokens.outputTokens + tokens.cacheCreationInputTokens;
}

const spendingSchema = z.object({
  costUsd: z.number().min(0),
  tokens: tokenCountsSchema,
  /** Agent runs (attempts) on the story. */
  attempts: z.int().min(0),
});
export type Spending = z.infer<typeof spendingSchema>;

export const budgetStateSchema = z.object({ stories: z.record(z.string(), spendingSchema) });
export type BudgetState = z.infer<typeof budgetStateSchema>;

export const EMPTY_BUDGET: BudgetState = { stories: {} };
export const NO_SPENDING: Spending = { costUsd: 0, tokens: ZERO_TOKENS, attempts: 0 };

export interface BudgetObservation {
  storyId: string;
  costUsd: number | undefined;
  tokens: TokenCounts | undefined;
}

/** Adds one agent run's cost to its story. */
export function nextBudget(state: BudgetState, observation: BudgetObservation): BudgetState {
  const before = state.stories[observation.storyId] ?? NO_SPENDING;
  return {
    stories: {
      ...state.stories,
      [observation.storyId]: {
        costUsd: before.costUsd + (observation.costUsd ?? 0),
        tokens: addTokens(before.tokens, observation.tokens),
        attempts: before.attempts + 1,
      },
    },
  };
}

export interface BudgetLimits {
  /** The whole run (`--max-cost`); undefined: no limit. */
  maxCostUsd: number | undefined;
  /** Each story, unless the story sets its own `maxCostUsd`. */
  maxStoryCostUsd: number | undefined;
}

export interface BudgetExceeded {
  scope: 'run' | 'story';
  storyId: string | undefined;
  spentUsd: number;
  limitUsd: number;
  message: string;
}

/** The first limit that is reached (spent ≥ limit), run before story; undefined when none is. */
export function checkBudget(input: {
  runCostUsd: number;
  limits: BudgetLimits;
  storyId: string;
  storyCostUsd: number;
  /** The story's own `maxCostUsd`, which wins over `limits.maxStoryCostUsd`. */
  storyLimitUsd: number | undefined;
}): BudgetExceeded | undefined {
  const { maxCostUsd } = input.limits;
  if (maxCostUsd !== undefined && input.runCostUsd >= maxCostUsd) {
    return {
      scope: 'run',
      storyId: undefined,
      spentUsd: input.runCostUsd,
      limitUsd: maxCostUsd,
      message: `the run has cost ${usd(input.runCostUsd)}, its budget is ${usd(maxCostUsd)} (--max-cost)`,
    };
  }
  const storyLimit = input.storyLimitUsd ?? input.limits.maxStoryCostUsd;
  if (storyLimit !== undefined && input.storyCostUsd >= storyLimit) {
    return {
      scope: 'story',
      storyId: input.storyId,
      spentUsd: input.storyCostUsd,
      limitUsd: storyLimit,
      message: `${input.storyId} has cost ${usd(input.storyCostUsd)}, its budget is ${usd(storyLimit)}`,
    };
  }
  return undefined;
}

export function usd(amount: number): string {
  return `$${amount.toFixed(amount < 1 ? 4 : 2)}`;
}
