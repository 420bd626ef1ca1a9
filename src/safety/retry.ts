/**
 * Retries of a transient failure (issue 4, item 5); which failures are transient is decided in
 * failures.ts (re-exported here for older imports).
 */

export { classifyFailure, type FailureClass } from './failures.js';

export interface RetryConfig {
  /** Retries after the first attempt (3: attempts 2, 3 and 4). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** ± this fraction of the delay, from the injected random source. */
  jitter: number;
}

export type RetryDecision =
  { retry: true; retryNumber: number; delayMs: number } | { retry: false; why: string };

/**
 * Whether a transient failure after `retriesSoFar` retries gets another, and after how long:
 * base × 2^(n-1), capped, ± jitter (2 s, 4 s, 8 s by default). `random` returns [0, 1).
 */
export function nextRetry(
  retriesSoFar: number,
  config: RetryConfig,
  random: () => number,
): RetryDecision {
  if (retriesSoFar >= config.maxRetries) {
    return {
      retry: false,
      why: `gave up after ${retriesSoFar} ${retriesSoFar === 1 ? 'retry' : 'retries'}`,
    };
  }
  const retryNumber = retriesSoFar + 1;
  const nominal = Math.min(config.maxDelayMs, config.baseDelayMs * 2 ** (retryNumber - 1));
  const factor = 1 - config.jitter + 2 * config.jitter * Math.min(Math.max(random(), 0), 1);
  return { retry: true, retryNumber, delayMs: Math.max(0, Math.round(nominal * factor)) };
}
