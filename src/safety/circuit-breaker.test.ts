import { describe, expect, it } from 'vitest';
import {
  cooldownEnds,
  INITIAL_BREAKER,
  nextBreaker,
  normaliseError,
  type BreakerConfig,
  type BreakerObservation,
  type BreakerState,
} from './circuit-breaker.js';

const CONFIG: BreakerConfig = {
  noProgressThreshold: 3,
  sameErrorThreshold: 5,
  permissionDenialThreshold: 2,
  cooldownMs: 30 * 60_000,
};
const T0 = new Date('2026-11-22T12:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const progress: BreakerObservation = {
  type: 'iteration',
  progress: true,
  error: undefined,
  deniedTools: [],
};
const quiet: BreakerObservation = {
  type: 'iteration',
  progress: false,
  error: undefined,
  deniedTools: [],
};
const failed = (error: string): BreakerObservation => ({
  type: 'iteration',
  progress: false,
  error,
  deniedTools: [],
});
const denied = (...tools: string[]): BreakerObservation => ({
  type: 'iteration',
  progress: false,
  error: undefined,
  deniedTools: tools,
});

/** Feeds observations one minute apart; returns the final state and every transition. */
function feed(observations: BreakerObservation[], from: BreakerState = INITIAL_BREAKER) {
  let state = from;
  const transitions: string[] = [];
  observations.forEach((observation, index) => {
    const step = nextBreaker(state, observation, at(index), CONFIG);
    state = step.state;
    if (step.transition) transitions.push(`${step.transition.from}→${step.transition.to}`);
  });
  return { state, transitions };
}

describe('circuit breaker', () => {
  it.each([
    { name: 'two quiet iterations stay closed', run: [quiet, quiet], state: 'CLOSED' },
    { name: 'three quiet iterations open it', run: [quiet, quiet, quiet], state: 'OPEN' },
    {
      name: 'progress resets the no-progress count',
      run: [quiet, quiet, progress, quiet, quiet],
      state: 'CLOSED',
    },
    {
      name: 'the same error four times stays closed',
      run: [failed('E'), failed('E'), failed('E'), failed('E')],
      state: 'CLOSED',
    },
    {
      name: 'the same error five times opens it',
      run: [failed('E'), failed('E'), failed('E'), failed('E'), failed('E')],
      state: 'OPEN',
    },
    {
      name: 'three different errors open it (no progress)',
      run: [failed('A'), failed('B'), failed('C')],
      state: 'OPEN',
    },
    {
      name: 'alternating errors open it at the no-progress threshold',
      run: [failed('A'), failed('B'), failed('A')],
      state: 'OPEN',
    },
    {
      name: 'the same error differing only in numbers, ids and paths is the same error',
      run: [
        failed('API Error: 400 req_011CV2S4jxpPs7x8XWqHUiM7 at /tmp/a/b.ts:10'),
        failed('API Error: 400 req_022AB9S4jxpPs7x8XWqHUiM8 at /tmp/c/d.ts:12'),
        failed('API Error: 400 req_033AB9S4jxpPs7x8XWqHUiM9 at /tmp/e/f.ts:99'),
        failed('API Error: 400 req_044AB9S4jxpPs7x8XWqHUiMa at /tmp/g/h.ts:1'),
        failed('API Error: 400 req_055AB9S4jxpPs7x8XWqHUiMb at /tmp/i/j.ts:7'),
      ],
      state: 'OPEN',
    },
    { name: 'one permission denial stays closed', run: [denied('Bash')], state: 'CLOSED' },
    { name: 'two denials in a row open it', run: [denied('Bash'), denied('Write')], state: 'OPEN' },
    {
      name: 'a denial then a clean quiet iteration resets the denial count',
      run: [denied('Bash'), quiet, denied('Bash')],
      state: 'OPEN', // three without progress
    },
  ])('$name', ({ run, state }) => {
    expect(feed(run).state.state).toBe(state);
  });

  it('says why it opened: the repeated error, the denied tools, or no progress', () => {
    const same = feed(Array.from({ length: 5 }, () => failed('exit code 1: boom')));
    expect(same.state.reason).toBe('the same error 5 times in a row: exit code 1: boom');
    expect(feed([denied('Bash'), denied('Bash', 'Write')]).state.reason).toBe(
      'the agent was denied permission in 2 iterations in a row (Bash, Write)',
    );
    expect(feed([quiet, quiet, quiet]).state.reason).toBe(
      'no progress in 3 iterations in a row (last: no story was marked passing)',
    );
    expect(feed([quiet, quiet, quiet]).state.openedAt).toBe(at(2).toISOString());
  });

  it('counts a repeated error toward sameError, not noProgress', () => {
    const { state } = feed([quiet, failed('E'), failed('E'), failed('E')]);
    expect(state).toMatchObject({ state: 'CLOSED', noProgress: 2, sameError: 3 });
  });

  it('cools down into HALF_OPEN at the next run start, not before', () => {
    const open = feed([quiet, quiet, quiet]).state;
    expect(cooldownEnds(open, CONFIG)).toEqual(at(32));
    const early = nextBreaker(open, { type: 'run_start' }, at(31), CONFIG);
    expect(early.state.state).toBe('OPEN');
    expect(early.transition).toBeUndefined();
    const later = nextBreaker(open, { type: 'run_start' }, at(32), CONFIG);
    expect(later.state).toMatchObject({ state: 'HALF_OPEN', noProgress: 0, sameError: 0 });
    expect(later.transition).toMatchObject({ from: 'OPEN', to: 'HALF_OPEN' });
  });

  it.each([
    { name: 'progress closes a half-open breaker', next: progress, state: 'CLOSED' },
    { name: 'no progress reopens it at once', next: quiet, state: 'OPEN' },
    { name: 'an error reopens it at once', next: failed('E'), state: 'OPEN' },
  ])('$name', ({ next, state }) => {
    const half: BreakerState = { ...INITIAL_BREAKER, state: 'HALF_OPEN' };
    const step = nextBreaker(half, next, at(40), CONFIG);
    expect(step.state.state).toBe(state);
    expect(step.transition?.to).toBe(state);
    if (state === 'OPEN') expect(step.state.reason).toMatch(/^no progress after the cooldown/);
  });

  it('ignores iterations while OPEN and closes on reset', () => {
    const open = feed([quiet, quiet, quiet]).state;
    expect(nextBreaker(open, progress, at(5), CONFIG).state.state).toBe('OPEN');
    const reset = nextBreaker(open, { type: 'reset' }, at(5), CONFIG);
    expect(reset.state).toEqual(INITIAL_BREAKER);
    expect(reset.transition).toMatchObject({ from: 'OPEN', to: 'CLOSED' });
  });

  it('turns a check off with threshold 0', () => {
    const off = { ...CONFIG, noProgressThreshold: 0 };
    let state = INITIAL_BREAKER;
    for (let i = 0; i < 10; i += 1) state = nextBreaker(state, quiet, at(i), off).state;
    expect(state).toMatchObject({ state: 'CLOSED', noProgress: 10 });
  });
});

describe('normaliseError', () => {
  it.each([
    ['API Error: 529 Overloaded (127.0.0.1:33501)', 'API Error: 529 Overloaded (127.0.0.1:40001)'],
    ['failed at 2026-11-22T12:00:01.123Z', 'failed at 2026-11-23T08:30:59Z'],
    [
      'session 8a7971a5-1301-4b42-b886-f7a6f91502be died',
      'session d8c84a51-da8f-432b-94e5-ffcb5e8b4f44 died',
    ],
    ['cannot read /home/a/project/src/x.ts', 'cannot read /tmp/other/y.ts'],
    ['commit 4f2a9c1e failed', 'commit 9b3e77d0 failed'],
    ['Request req_011CV2S4jxpPs7x8XWqHUiM7 failed', 'Request req_0ABCDEF failed'],
  ])('treats %j and %j as the same error', (a, b) => {
    expect(normaliseError(a)).toBe(normaliseError(b));
  });

  it('keeps different errors apart', () => {
    expect(normaliseError('API Error: 400 prompt is too long')).not.toBe(
      normaliseError('API Error: 400 tool use concurrency'),
    );
  });
});
