import type { BudgetLimits } from './budget.js';
import type { BreakerConfig } from './circuit-breaker.js';
import type { UsageLimitBackoff } from './limits.js';
import type { RateLimitConfig } from './rate-limiter.js';
import type { RetryConfig } from './retry.js';

export const USAGE_LIMIT_ACTIONS = ['wait', 'exit', 'ask'] as const;
export type UsageLimitAction = (typeof USAGE_LIMIT_ACTIONS)[number];

/** Every threshold of the safety policies, resolved (config.yaml keys map onto these). */
export interface SafetySettings {
  breaker: BreakerConfig;
  /** `ralph run --reset-breaker`: start CLOSED whatever safety.json says. */
  resetBreaker: boolean;
  rateLimit: RateLimitConfig;
  budget: BudgetLimits;
  retry: RetryConfig;
  usageLimit: UsageLimitBackoff & {
    action: UsageLimitAction;
    /** `ask` gives up (and exits) after this long without an answer. */
    askTimeoutMs: number;
  };
  /** Kill an agent that prints nothing for this long. */
  idleTimeoutMs: number;
  /** Kill an agent that printed its result line but has not exited after this long. */
  resultGraceMs: number;
}

const MINUTE = 60_000;

export const DEFAULT_SAFETY: SafetySettings = {
  breaker: {
    noProgressThreshold: 3,
    sameErrorThreshold: 5,
    permissionDenialThreshold: 2,
    cooldownMs: 30 * MINUTE,
  },
  resetBreaker: false,
  rateLimit: { callsPerHour: 100, tokensPerHour: undefined },
  budget: { maxCostUsd: undefined, maxStoryCostUsd: undefined },
  retry: { maxRetries: 3, baseDelayMs: 2000, maxDelayMs: 60_000, jitter: 0.2 },
  usageLimit: {
    action: 'wait',
    askTimeoutMs: 30_000,
    marginMs: MINUTE,
    unknownBaseMs: 5 * MINUTE,
    unknownMaxMs: 60 * MINUTE,
  },
  idleTimeoutMs: 5 * MINUTE,
  resultGraceMs: 30_000,
};
