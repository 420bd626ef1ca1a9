import { configSchema, type Config } from '../state/config-schema.js';
import { USAGE_LIMIT_ACTIONS } from '../state/safety-config-schema.js';
import type { BudgetLimits } from './budget.js';
import type { BreakerConfig } from './circuit-breaker.js';
import type { UsageLimitBackoff } from './limits.js';
import type { RateLimitConfig } from './rate-limiter.js';
import type { RetryConfig } from './retry.js';

export { USAGE_LIMIT_ACTIONS };
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
  /** Wait for a usage window's reset instead of starting at or above this use (0: off). */
  pace: number;
  /** Kill an agent that prints nothing for this long. */
  idleTimeoutMs: number;
  /** Kill an agent that printed its result line but has not exited after this long. */
  resultGraceMs: number;
  /** Agent output lines are cut at this many bytes (agents/line-splitter.ts). */
  maxLineBytes: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The resolved configuration in the units the policies work in. */
export function safetySettingsFrom(
  config: Pick<
    Config,
    | 'circuitBreaker'
    | 'rateLimit'
    | 'budget'
    | 'retry'
    | 'usageLimit'
    | 'limits'
    | 'idleTimeoutMinutes'
    | 'resultGraceSeconds'
    | 'maxLineBytes'
  >,
  resetBreaker: boolean,
): SafetySettings {
  const { circuitBreaker, rateLimit, budget, retry, usageLimit } = config;
  return {
    breaker: {
      noProgressThreshold: circuitBreaker.noProgressThreshold,
      sameErrorThreshold: circuitBreaker.sameErrorThreshold,
      permissionDenialThreshold: circuitBreaker.permissionDenialThreshold,
      cooldownMs: circuitBreaker.cooldownMinutes * MINUTE,
    },
    resetBreaker,
    rateLimit: { callsPerHour: rateLimit.callsPerHour, tokensPerHour: rateLimit.tokensPerHour },
    budget: { maxCostUsd: budget.maxCostUsd, maxStoryCostUsd: budget.maxStoryCostUsd },
    retry: {
      maxRetries: retry.maxRetries,
      baseDelayMs: retry.baseDelaySeconds * SECOND,
      maxDelayMs: retry.maxDelaySeconds * SECOND,
      jitter: 0.2,
    },
    usageLimit: {
      action: usageLimit.action,
      askTimeoutMs: usageLimit.askTimeoutSeconds * SECOND,
      marginMs: usageLimit.marginSeconds * SECOND,
      unknownBaseMs: usageLimit.firstBackoffMinutes * MINUTE,
      unknownMaxMs: usageLimit.maxBackoffMinutes * MINUTE,
    },
    pace: config.limits.pace,
    // 0 turns the idle limit off: spawn treats 0 as "none".
    idleTimeoutMs: config.idleTimeoutMinutes * MINUTE,
    resultGraceMs: config.resultGraceSeconds * SECOND,
    maxLineBytes: config.maxLineBytes,
  };
}

/** The policies as the configuration's defaults set them (a library run that passes none). */
export const DEFAULT_SAFETY: SafetySettings = safetySettingsFrom(configSchema.parse({}), false);
