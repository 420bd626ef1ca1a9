import { describe, expect, it } from 'vitest';
import { configSchema } from '../state/config-schema.js';
import { DEFAULT_SAFETY, safetySettingsFrom } from './settings.js';

describe('safety settings', () => {
  it('are, by default, the configuration defaults in the policies’ units', () => {
    expect(DEFAULT_SAFETY).toEqual({
      breaker: {
        noProgressThreshold: 3,
        sameErrorThreshold: 5,
        permissionDenialThreshold: 2,
        cooldownMs: 30 * 60_000,
      },
      resetBreaker: false,
      rateLimit: { callsPerHour: 100, tokensPerHour: undefined },
      budget: { maxCostUsd: undefined, maxStoryCostUsd: undefined },
      retry: { maxRetries: 3, baseDelayMs: 2000, maxDelayMs: 60_000, jitter: 0.2 },
      usageLimit: {
        action: 'wait',
        askTimeoutMs: 30_000,
        marginMs: 60_000,
        unknownBaseMs: 5 * 60_000,
        unknownMaxMs: 60 * 60_000,
      },
      pace: 0,
      idleTimeoutMs: 5 * 60_000,
      resultGraceMs: 30_000,
      maxLineBytes: 1_048_576,
    });
  });

  it('convert configured minutes and seconds', () => {
    const config = configSchema.parse({
      idleTimeoutMinutes: 0,
      retry: { baseDelaySeconds: 0.5 },
      usageLimit: { action: 'exit', firstBackoffMinutes: 2 },
      budget: { maxCostUsd: 3 },
    });
    const settings = safetySettingsFrom(config, true);
    expect(settings.idleTimeoutMs).toBe(0);
    expect(settings.retry.baseDelayMs).toBe(500);
    expect(settings.usageLimit).toMatchObject({ action: 'exit', unknownBaseMs: 120_000 });
    expect(settings.budget.maxCostUsd).toBe(3);
    expect(settings.resetBreaker).toBe(true);
  });
});
