import type { SafetySettings } from '../../safety/settings.js';
import type { Config, ConfigFile } from '../../state/config-schema.js';

/** `ralph run` flags for the safety policies (issue 4); each is also a configuration key. */
export interface SafetyFlags {
  idleTimeoutMinutes: number | undefined;
  maxCostUsd: number | undefined;
  usageLimitAction: 'wait' | 'exit' | 'ask' | undefined;
  callsPerHour: number | undefined;
}

/** The config layer the safety flags stand for (flags win over every other source). */
export function safetyFlagsToConfig(flags: SafetyFlags): ConfigFile {
  const layer: ConfigFile = {};
  if (flags.idleTimeoutMinutes !== undefined) layer.idleTimeoutMinutes = flags.idleTimeoutMinutes;
  if (flags.maxCostUsd !== undefined) layer.budget = { maxCostUsd: flags.maxCostUsd };
  if (flags.usageLimitAction !== undefined) {
    layer.usageLimit = { action: flags.usageLimitAction };
  }
  if (flags.callsPerHour !== undefined) layer.rateLimit = { callsPerHour: flags.callsPerHour };
  return layer;
}

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
