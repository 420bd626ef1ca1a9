import type { LoopEvent } from '../../core/events.js';

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
        ...safety,
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
    case 'run_finished':
      return withoutWait(safety);
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
  }
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
