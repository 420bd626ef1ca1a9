import type { SafetySettings } from '../safety/settings.js';
import type { Config } from '../state/config-schema.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The resolved configuration in the units the policies work in. */
export function safetySettingsFrom(config: Config, resetBreaker: boolean): SafetySettings {
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
    // 0 turns the idle limit off: spawn treats 0 as "none".
    idleTimeoutMs: config.idleTimeoutMinutes * MINUTE,
    resultGraceMs: config.resultGraceSeconds * SECOND,
  };
}
