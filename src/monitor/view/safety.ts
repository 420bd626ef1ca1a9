import type { LoopEvent, UsageWindowView } from '../../core/events.js';
import { retryText } from './usage-text.js';

/**
 * The safety part of the monitor's view: circuit breaker, agent calls against the hourly
 * limit, a wait in progress (usage-limit reset, rate limit, retry backoff) and the last
 * usage-limit and budget stops — folded from the safety events the loop reports.
 */

export interface SafetyView {
  breaker?: {
    state: string;
    reason?: string;
    noProgress?: number;
    noProgressLimit?: number;
    cooldownUntil?: string;
  };
  /** Agent calls in the last hour (as the limiter counts them) and the hourly limit. */
  rate?: { calls?: number; limit?: number };
  wait?: { reason: string; since: string; until: string; detail: string };
  usageLimit?: { message: string; resetAt?: string; action: string; at: string };
  budget?: { message: string; at: string };
  /** The subscription's usage windows as the loop last reported them, and limits.pace. */
  usage?: { windows: Record<string, UsageWindowView>; pace?: number; at: string };
  /** Claude Code retrying an API request in the running attempt: "retrying (attempt 2 of 10, …)". */
  retry?: { text: string; at: string };
}

type SafetyEvent = Extract<
  LoopEvent,
  {
    type:
      | 'run_started'
      | 'iteration_finished'
      | 'breaker_changed'
      | 'wait_started'
      | 'wait_progress'
      | 'wait_finished'
      | 'usage_limit'
      | 'budget_exceeded'
      | 'agent_retry'
      | 'usage_windows'
      | 'run_finished';
  }
>;

export function reduceSafety(safety: SafetyView, event: SafetyEvent): SafetyView {
  switch (event.type) {
    case 'run_started': {
      const limit = event.rateLimit?.callsPerHour;
      return {
        ...withoutWait(safety),
        ...(event.breaker === undefined ? {} : { breaker: breakerOf(event.breaker) }),
        rate: { ...safety.rate, ...(limit === undefined ? {} : { limit }) },
      };
    }
    case 'iteration_finished':
      return {
        ...without(safety, 'retry'),
        ...(event.breaker === undefined ? {} : { breaker: breakerOf(event.breaker) }),
        ...(event.callsLastHour === undefined
          ? {}
          : { rate: { ...safety.rate, calls: event.callsLastHour } }),
      };
    case 'breaker_changed':
      return { ...safety, breaker: breakerOf({ ...event.breaker, reason: event.reason }) };
    case 'wait_started':
      return {
        ...safety,
        wait: { reason: event.reason, since: event.at, until: event.until, detail: event.detail },
      };
    case 'wait_progress':
      return safety.wait === undefined
        ? safety
        : { ...safety, wait: { ...safety.wait, until: event.until } };
    case 'wait_finished':
      return withoutWait(safety);
    case 'run_finished':
      return without(withoutWait(safety), 'retry');
    case 'usage_limit':
      return {
        ...safety,
        usageLimit: {
          message: event.message,
          ...(event.resetAt === undefined ? {} : { resetAt: event.resetAt }),
          action: event.action,
          at: event.at,
        },
      };
    case 'budget_exceeded':
      return { ...safety, budget: { message: event.message, at: event.at } };
    case 'agent_retry':
      return { ...safety, retry: { text: retryText(event), at: event.at } };
    case 'usage_windows':
      return {
        ...safety,
        usage: {
          windows: event.windows,
          ...(event.pace === undefined ? {} : { pace: event.pace }),
          at: event.at,
        },
      };
  }
}

function without(safety: SafetyView, key: 'retry'): SafetyView {
  if (safety[key] === undefined) return safety;
  const rest = { ...safety };
  delete rest.retry;
  return rest;
}

function breakerOf(snapshot: {
  state: string;
  reason?: string | undefined;
  noProgress?: number;
  thresholds?: { noProgress: number };
  cooldownUntil?: string | undefined;
}): NonNullable<SafetyView['breaker']> {
  return {
    state: snapshot.state,
    ...(snapshot.reason === undefined ? {} : { reason: snapshot.reason }),
    ...(snapshot.noProgress === undefined ? {} : { noProgress: snapshot.noProgress }),
    ...(snapshot.thresholds === undefined
      ? {}
      : { noProgressLimit: snapshot.thresholds.noProgress }),
    ...(snapshot.cooldownUntil === undefined ? {} : { cooldownUntil: snapshot.cooldownUntil }),
  };
}

function withoutWait(safety: SafetyView): SafetyView {
  if (safety.wait === undefined) return safety;
  const rest = { ...safety };
  delete rest.wait;
  return rest;
}
