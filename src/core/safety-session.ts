import {
  billableTokens,
  NO_SPENDING,
  nextBudget,
  type Spending,
  type TokenCounts,
} from '../safety/budget.js';
import {
  cooldownEnds,
  nextBreaker,
  type BreakerObservation,
  type BreakerTransition,
} from '../safety/circuit-breaker.js';
import { checkRate, nextRateWindow, type RateDecision } from '../safety/rate-limiter.js';
import type { SafetySettings } from '../safety/settings.js';
import { readSafety, writeSafety, type PendingWait, type SafetyFile } from '../safety/store.js';
import { nextUsageWindows, type UsageReading, type UsageWindows } from '../safety/usage-windows.js';
import type { BreakerSnapshot, Spend } from './events.js';

/**
 * The loop's handle on the safety policies: it holds their state (safety.json), feeds them
 * observations through their pure `next…` functions, and saves. The engine and attempt.ts decide
 * what to do with the answers.
 */
export interface SafetySession {
  readonly settings: SafetySettings;
  save(now: Date): Promise<void>;
  breaker(): BreakerSnapshot;
  /** Counts an observation; returns the state change, if any. */
  observeBreaker(observation: BreakerObservation, now: Date): BreakerTransition | undefined;
  checkRate(now: Date): RateDecision;
  callStarted(now: Date): void;
  callFinished(tokens: TokenCounts | undefined, now: Date): void;
  spend(storyId: string, costUsd: number | undefined, tokens: TokenCounts | undefined): void;
  storySpending(storyId: string): Spending;
  pendingWait(): PendingWait | undefined;
  setPendingWait(wait: PendingWait | undefined): void;
  /** Usage limits in a row without a known reset time (0 after any other outcome). */
  unknownResetStreak(): number;
  setUnknownResetStreak(streak: number): void;
  /** The usage windows as last reported (safety.json keeps them between runs). */
  usageWindows(): UsageWindows;
  /** Takes in an attempt's rate_limit_event readings; true when they named any window. */
  recordUsage(readings: readonly UsageReading[], now: Date): boolean;
}

export async function openSafetySession(
  loopDir: string,
  settings: SafetySettings,
  now: Date,
): Promise<SafetySession> {
  let state: SafetyFile = await readSafety(loopDir, now);
  const update = (change: Partial<SafetyFile>): void => {
    state = { ...state, ...change };
  };
  return {
    settings,
    save: (at) => writeSafety(loopDir, { ...state, updatedAt: at.toISOString() }),
    breaker: () => {
      const config = settings.breaker;
      return {
        state: state.breaker.state,
        noProgress: state.breaker.noProgress,
        sameError: state.breaker.sameError,
        permissionDenials: state.breaker.permissionDenials,
        thresholds: {
          noProgress: config.noProgressThreshold,
          sameError: config.sameErrorThreshold,
          permissionDenials: config.permissionDenialThreshold,
        },
        reason: state.breaker.reason,
        cooldownUntil: cooldownEnds(state.breaker, config)?.toISOString(),
      };
    },
    observeBreaker(observation, at) {
      const step = nextBreaker(state.breaker, observation, at, settings.breaker);
      update({ breaker: step.state });
      return step.transition;
    },
    checkRate: (at) => checkRate(state.rateLimit, settings.rateLimit, at),
    callStarted(at) {
      update({ rateLimit: nextRateWindow(state.rateLimit, { type: 'call_started' }, at) });
    },
    callFinished(tokens, at) {
      const observation = { type: 'call_finished', tokens: billableTokens(tokens) } as const;
      update({ rateLimit: nextRateWindow(state.rateLimit, observation, at) });
    },
    spend(storyId, costUsd, tokens) {
      update({ budget: nextBudget(state.budget, { storyId, costUsd, tokens }) });
    },
    storySpending: (storyId) => state.budget.stories[storyId] ?? NO_SPENDING,
    pendingWait: () => state.usageLimit.pending,
    setPendingWait(wait) {
      const usageLimit = { ...state.usageLimit, pending: wait };
      if (wait === undefined) delete usageLimit.pending;
      update({ usageLimit });
    },
    unknownResetStreak: () => state.usageLimit.unknownResetStreak,
    setUnknownResetStreak(streak) {
      update({ usageLimit: { ...state.usageLimit, unknownResetStreak: streak } });
    },
    usageWindows: () => state.usageWindows ?? {},
    recordUsage(readings, at) {
      const named = readings.some(
        (reading) =>
          reading.rateLimitType !== undefined || Object.keys(reading.windows ?? {}).length > 0,
      );
      if (named) update({ usageWindows: nextUsageWindows(state.usageWindows ?? {}, readings, at) });
      return named;
    },
  };
}

export function spendOf(spending: { costUsd: number; tokens: TokenCounts }): Spend {
  return { costUsd: spending.costUsd, tokens: { ...spending.tokens } };
}
