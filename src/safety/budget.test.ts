import { describe, expect, it } from 'vitest';
import {
  addTokens,
  billableTokens,
  checkBudget,
  EMPTY_BUDGET,
  nextBudget,
  ZERO_TOKENS,
  type BudgetLimits,
} from './budget.js';

const tokens = (input: number, output: number, cacheRead = 0, cacheCreation = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadInputTokens: cacheRead,
  cacheCreationInputTokens: cacheCreation,
});

describe('budget', () => {
  it('adds each run to its story: cost, tokens and attempts', () => {
    let state = nextBudget(EMPTY_BUDGET, { storyId: 'S-1', costUsd: 0.5, tokens: tokens(10, 5) });
    state = nextBudget(state, { storyId: 'S-1', costUsd: 0.25, tokens: tokens(1, 1, 100) });
    state = nextBudget(state, { storyId: 'S-2', costUsd: undefined, tokens: undefined });
    expect(state.stories['S-1']).toEqual({
      costUsd: 0.75,
      tokens: tokens(11, 6, 100),
      attempts: 2,
    });
    expect(state.stories['S-2']).toEqual({ costUsd: 0, tokens: ZERO_TOKENS, attempts: 1 });
  });

  const none: BudgetLimits = { maxCostUsd: undefined, maxStoryCostUsd: undefined };
  it.each([
    { name: 'no limits', limits: none, run: 99, story: 99, own: undefined, scope: undefined },
    {
      name: 'run under its limit',
      limits: { ...none, maxCostUsd: 5 },
      run: 4.99,
      story: 0,
      own: undefined,
      scope: undefined,
    },
    {
      name: 'run reaching its limit',
      limits: { ...none, maxCostUsd: 5 },
      run: 5,
      story: 0,
      own: undefined,
      scope: 'run',
    },
    {
      name: 'run crossing its limit',
      limits: { ...none, maxCostUsd: 5 },
      run: 5.2,
      story: 0,
      own: undefined,
      scope: 'run',
    },
    {
      name: 'story crossing the configured limit',
      limits: { ...none, maxStoryCostUsd: 1 },
      run: 1.5,
      story: 1.5,
      own: undefined,
      scope: 'story',
    },
    {
      name: "the story's own limit wins (higher)",
      limits: { ...none, maxStoryCostUsd: 1 },
      run: 1.5,
      story: 1.5,
      own: 2,
      scope: undefined,
    },
    {
      name: "the story's own limit wins (lower)",
      limits: none,
      run: 0.6,
      story: 0.6,
      own: 0.5,
      scope: 'story',
    },
    {
      name: 'run is checked before story',
      limits: { maxCostUsd: 1, maxStoryCostUsd: 1 },
      run: 2,
      story: 2,
      own: undefined,
      scope: 'run',
    },
  ])('$name', ({ limits, run, story, own, scope }) => {
    const exceeded = checkBudget({
      runCostUsd: run,
      limits,
      storyId: 'S-1',
      storyCostUsd: story,
      storyLimitUsd: own,
    });
    expect(exceeded?.scope).toBe(scope);
  });

  it('explains the crossing in dollars', () => {
    const exceeded = checkBudget({
      runCostUsd: 5.2,
      limits: { maxCostUsd: 5, maxStoryCostUsd: undefined },
      storyId: 'S-1',
      storyCostUsd: 0,
      storyLimitUsd: undefined,
    });
    expect(exceeded?.message).toBe('the run has cost $5.20, its budget is $5.00 (--max-cost)');
  });

  it('counts billable tokens without cache reads', () => {
    expect(billableTokens(tokens(100, 20, 5000, 30))).toBe(150);
    expect(addTokens(tokens(1, 2, 3, 4), tokens(1, 1, 1, 1))).toEqual(tokens(2, 3, 4, 5));
  });
});
