import * as z from 'zod';

/**
 * The circuit breaker (issue 4, item 1): CLOSED → OPEN → HALF_OPEN → CLOSED. A pure state
 * machine: `nextBreaker(state, observation, now, config)` returns the next state and, when the
 * state changed, why. The engine persists the state (safety.json) and acts on OPEN.
 *
 * Counting rule, chosen so that both thresholds mean something with their defaults (3 and 5):
 * an iteration without progress counts toward "no progress" unless it failed with the same
 * error as the iteration before it, which the "same error" count tracks instead. So three
 * different failures (or quiet iterations) in a row open the breaker at 3, while one error
 * repeating opens it at 5. Progress resets every count.
 */

export const BREAKER_STATES = ['CLOSED', 'OPEN', 'HALF_OPEN'] as const;
export type BreakerPosition = (typeof BREAKER_STATES)[number];

export const breakerStateSchema = z.object({
  state: z.enum(BREAKER_STATES),
  /** Iterations in a row without progress (see the counting rule above). */
  noProgress: z.int().min(0),
  /** Iterations in a row that failed with the same normalised error. */
  sameError: z.int().min(0),
  /** Iterations in a row without progress in which the agent was denied a tool. */
  permissionDenials: z.int().min(0),
  /** The normalised error of the last failed iteration (what "the same error" compares). */
  lastErrorKey: z.string().optional(),
  /** That error as the person saw it. */
  lastError: z.string().optional(),
  /** When the breaker last opened (ISO 8601); the cooldown counts from here. */
  openedAt: z.iso.datetime({ offset: true }).optional(),
  /** Why it opened, or why it is half-open. */
  reason: z.string().optional(),
});
export type BreakerState = z.infer<typeof breakerStateSchema>;

export interface BreakerConfig {
  /** 0 turns the check off. */
  noProgressThreshold: number;
  sameErrorThreshold: number;
  permissionDenialThreshold: number;
  /** How long OPEN lasts before the next run may try again (HALF_OPEN). */
  cooldownMs: number;
}

export type BreakerObservation =
  /** One finished iteration (its last attempt). */
  | {
      type: 'iteration';
      progress: boolean;
      /** Why the iteration failed; undefined when it ran to a normal end. */
      error: string | undefined;
      /** Tools the agent was denied in this iteration. */
      deniedTools: readonly string[];
    }
  /** A run starts: an OPEN breaker whose cooldown passed becomes HALF_OPEN. */
  | { type: 'run_start' }
  /** `ralph run --reset-breaker`. */
  | { type: 'reset' };

export interface BreakerTransition {
  from: BreakerPosition;
  to: BreakerPosition;
  reason: string;
}

export interface BreakerStep {
  state: BreakerState;
  transition: BreakerTransition | undefined;
}

export const INITIAL_BREAKER: BreakerState = {
  state: 'CLOSED',
  noProgress: 0,
  sameError: 0,
  permissionDenials: 0,
};

export function nextBreaker(
  state: BreakerState,
  observation: BreakerObservation,
  now: Date,
  config: BreakerConfig,
): BreakerStep {
  switch (observation.type) {
    case 'reset':
      return move(state, { ...INITIAL_BREAKER }, 'reset by --reset-breaker');
    case 'run_start': {
      const ends = cooldownEnds(state, config);
      if (state.state !== 'OPEN' || ends === undefined || now < ends) return same(state);
      return move(
        state,
        {
          ...INITIAL_BREAKER,
          state: 'HALF_OPEN',
          reason: `cooldown passed after: ${state.reason ?? 'open'}`,
        },
        'cooldown passed: one iteration with progress closes it, one without reopens it',
      );
    }
    case 'iteration':
      return afterIteration(state, observation, now, config);
  }
}

function afterIteration(
  state: BreakerState,
  observation: Extract<BreakerObservation, { type: 'iteration' }>,
  now: Date,
  config: BreakerConfig,
): BreakerStep {
  if (state.state === 'OPEN') return same(state);
  if (observation.progress) {
    const closed: BreakerState = { ...INITIAL_BREAKER };
    return state.state === 'HALF_OPEN'
      ? move(state, closed, 'an iteration made progress')
      : same(closed);
  }
  const key = observation.error === undefined ? undefined : normaliseError(observation.error);
  const repeated = key !== undefined && key === state.lastErrorKey;
  const counted: BreakerState = {
    state: state.state,
    noProgress: repeated ? state.noProgress : state.noProgress + 1,
    sameError: key === undefined ? 0 : repeated ? state.sameError + 1 : 1,
    permissionDenials: observation.deniedTools.length > 0 ? state.permissionDenials + 1 : 0,
    ...(key === undefined ? {} : { lastErrorKey: key, lastError: observation.error }),
  };
  const open = (reason: string): BreakerStep =>
    move(state, { ...counted, state: 'OPEN', openedAt: now.toISOString(), reason }, reason);
  const what = observation.error ?? 'no story was marked passing';
  if (state.state === 'HALF_OPEN') return open(`no progress after the cooldown: ${what}`);
  if (reached(counted.sameError, config.sameErrorThreshold)) {
    return open(`the same error ${counted.sameError} times in a row: ${what}`);
  }
  if (reached(counted.permissionDenials, config.permissionDenialThreshold)) {
    const tools = [...new Set(observation.deniedTools)].join(', ');
    return open(
      `the agent was denied permission in ${counted.permissionDenials} iterations in a row (${tools})`,
    );
  }
  if (reached(counted.noProgress, config.noProgressThreshold)) {
    return open(`no progress in ${counted.noProgress} iterations in a row (last: ${what})`);
  }
  return same(counted);
}

/** When an OPEN breaker may be tried again; undefined when it is not open. */
export function cooldownEnds(state: BreakerState, config: BreakerConfig): Date | undefined {
  if (state.state !== 'OPEN' || state.openedAt === undefined) return undefined;
  return new Date(Date.parse(state.openedAt) + config.cooldownMs);
}

function reached(count: number, threshold: number): boolean {
  return threshold > 0 && count >= threshold;
}

function same(state: BreakerState): BreakerStep {
  return { state, transition: undefined };
}

function move(from: BreakerState, to: BreakerState, reason: string): BreakerStep {
  return {
    state: to,
    transition: from.state === to.state ? undefined : { from: from.state, to: to.state, reason },
  };
}

/**
 * An error message reduced to what stays the same when the same failure repeats: timestamps,
 * ids (uuids, request ids, hex), paths and numbers differ from one occurrence to the next.
 */
export function normaliseError(message: string): string {
  return message
    .toLowerCase()
    .replace(
      /\d{4}-\d{2}-\d{2}[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?/g,
      '<time>',
    )
    .replace(/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]m)?\b/g, '<time>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<id>')
    .replace(/\b(?:req|msg|toolu|srvtoolu|sess|session|run|call|evt)_[a-z0-9]+\b/g, '<id>')
    .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/g, '<id>')
    .replace(/(?:[a-z]:)?(?:[\\/][\w.@~+-]+)+[\\/]?/g, '<path>')
    .replace(/\d+(?:\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
