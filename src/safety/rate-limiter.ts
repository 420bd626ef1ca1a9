import * as z from 'zod';

/**
 * The rate limiter (issue 4, item 2): at most N agent calls, and optionally M tokens, in any
 * hour. A sliding window of call timestamps (not an hour-bucket counter), persisted with the
 * rest of the safety state so that a restart keeps counting. At the limit the engine waits
 * until enough calls leave the window; it never fails the run.
 */

export const RATE_WINDOW_MS = 60 * 60 * 1000;

export const rateWindowSchema = z.object({
  calls: z.array(
    z.object({
      /** When the agent was started (epoch ms). */
      at: z.number(),
      /** Tokens the call used (input + output + cache writes), once it finished. */
      tokens: z.number().min(0),
    }),
  ),
});
export type RateWindow = z.infer<typeof rateWindowSchema>;

export interface RateLimitConfig {
  /** 0 turns the call limit off. */
  callsPerHour: number;
  /** undefined or 0: no token limit. */
  tokensPerHour: number | undefined;
}

export type RateObservation =
  | { type: 'call_started' }
  /** Adds the tokens of the call that started last. */
  | { type: 'call_finished'; tokens: number };

export const EMPTY_RATE_WINDOW: RateWindow = { calls: [] };

export function nextRateWindow(
  state: RateWindow,
  observation: RateObservation,
  now: Date,
): RateWindow {
  const calls = inWindow(state, now);
  if (observation.type === 'call_started') {
    return { calls: [...calls, { at: now.getTime(), tokens: 0 }] };
  }
  const last = calls.at(-1);
  if (last === undefined) return { calls };
  return { calls: [...calls.slice(0, -1), { ...last, tokens: last.tokens + observation.tokens }] };
}

export interface RateUsage {
  calls: number;
  tokens: number;
}

export type RateDecision =
  ({ allowed: true } & RateUsage) | ({ allowed: false; until: Date; reason: string } & RateUsage);

/** May an agent start now? If not, when it may. */
export function checkRate(state: RateWindow, config: RateLimitConfig, now: Date): RateDecision {
  const calls = inWindow(state, now);
  const usage = { calls: calls.length, tokens: calls.reduce((sum, call) => sum + call.tokens, 0) };
  const waits: { until: number; reason: string }[] = [];
  if (config.callsPerHour > 0 && calls.length >= config.callsPerHour) {
    // The window is sorted: once the oldest (length - limit + 1) calls leave it, one more fits.
    const freeing = calls[calls.length - config.callsPerHour];
    if (freeing !== undefined) {
      waits.push({
        until: freeing.at + RATE_WINDOW_MS,
        reason: `${calls.length} agent calls in the last hour (limit ${config.callsPerHour})`,
      });
    }
  }
  const tokenLimit = config.tokensPerHour ?? 0;
  if (tokenLimit > 0 && usage.tokens >= tokenLimit) {
    let remaining = usage.tokens;
    for (const call of calls) {
      remaining -= call.tokens;
      if (remaining < tokenLimit) {
        waits.push({
          until: call.at + RATE_WINDOW_MS,
          reason: `${usage.tokens} tokens in the last hour (limit ${tokenLimit})`,
        });
        break;
      }
    }
  }
  const latest = waits.sort((a, b) => b.until - a.until)[0];
  if (latest === undefined || latest.until <= now.getTime()) return { allowed: true, ...usage };
  return { allowed: false, until: new Date(latest.until), reason: latest.reason, ...usage };
}

/** The calls still inside the window ending at `now`, oldest first. */
function inWindow(state: RateWindow, now: Date): RateWindow['calls'] {
  const from = now.getTime() - RATE_WINDOW_MS;
  return state.calls.filter((call) => call.at > from).sort((a, b) => a.at - b.at);
}
