import { describe, expect, it } from 'vitest';
import type { RateLimitInfo } from '../agents/types.js';
import type { Clock } from '../safety/clock.js';
import { DEFAULT_SAFETY } from '../safety/settings.js';
import { readSafety } from '../safety/store.js';
import {
  expectReadableAsWritten,
  fakeAgent,
  loopDir,
  pass,
  type Step,
} from '../../test/fixtures/core/engine-fakes.js';
import { loopOptions } from '../../test/fixtures/core/loop-options.js';
import { runLoop } from './engine.js';
import type { LoopEvent } from './events.js';

/**
 * Pacing (limits.pace) and the usage windows in the loop, on an injected clock whose sleep moves
 * time at once: the windows a run reports are kept in safety.json and announced; a window at or
 * above the threshold holds the next iteration back until its reset (the usage-limit wait); and
 * Claude Code's api_retry lines become agent_retry events while the agent still runs.
 */

const START = '2026-11-22T12:00:00Z';
const RESET = Date.parse('2026-11-22T14:00:00Z');
const WEEK_RESET = Date.parse('2026-11-26T09:00:00Z');

function clockAt(start: string): Clock & { sleeps: number[] } {
  let now = Date.parse(start);
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => new Date(now),
    sleep: (ms, signal) => {
      sleeps.push(ms);
      if (signal?.aborted !== true) now += ms;
      return Promise.resolve();
    },
  };
}

/** Passes the story and reports the windows as Claude Code's rate_limit_event does. */
function passReporting(id: string, fiveHour: number, weekly = 0.3): Step {
  return async (request, dir) => {
    const passed = await pass(id)(request, dir);
    const info: RateLimitInfo = {
      status: fiveHour >= 0.9 ? 'allowed_warning' : 'allowed',
      resetsAt: RESET,
      rateLimitType: 'five_hour',
      utilization: fiveHour,
      windows: {
        five_hour: { utilization: fiveHour, resetsAt: RESET, status: undefined },
        seven_day: { utilization: weekly, resetsAt: WEEK_RESET, status: undefined },
      },
    };
    return { ...passed, rateLimits: [info] };
  };
}

async function run(dir: string, steps: Step[], clock: Clock, pace: number) {
  const events: LoopEvent[] = [];
  const agent = fakeAgent(dir, steps);
  const result = await runLoop(
    loopOptions(dir, { safety: { ...DEFAULT_SAFETY, pace }, maxIterations: 3 }),
    {
      agent,
      clock,
      signal: new AbortController().signal,
      reporters: [{ onEvent: (event) => void events.push(event) }],
      random: () => 0.5,
      timeZone: 'UTC',
    },
  );
  expectReadableAsWritten(events);
  return { result, events, agent };
}

const ofType = <T extends LoopEvent['type']>(events: LoopEvent[], type: T) =>
  events.filter((event): event is Extract<LoopEvent, { type: T }> => event.type === type);

describe('usage windows and pacing', () => {
  it('keeps the windows in safety.json and announces them after the attempt', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    const { events } = await run(dir, [passReporting('STORY-001', 0.42)], clock, 0);
    const announced = ofType(events, 'usage_windows')[0];
    expect(announced).toMatchObject({
      windows: {
        five_hour: { utilization: 0.42, resetsAt: '2026-11-22T14:00:00.000Z', status: 'allowed' },
        seven_day: { utilization: 0.3, resetsAt: '2026-11-26T09:00:00.000Z' },
      },
    });
    expect(announced).not.toHaveProperty('pace');
    const stored = (await readSafety(dir, clock.now())).usageWindows;
    expect(stored?.five_hour).toMatchObject({
      utilization: 0.42,
      resetsAt: '2026-11-22T14:00:00.000Z',
    });
    expect(stored?.seven_day?.utilization).toBe(0.3);
  });

  it('waits for the reset before the next iteration when a window is above limits.pace', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    const { result, events, agent } = await run(
      dir,
      [passReporting('STORY-001', 0.93), passReporting('STORY-002', 0.05), pass('STORY-003')],
      clock,
      0.9,
    );
    expect(result.state).toBe('COMPLETE');
    const waits = ofType(events, 'wait_started');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({
      reason: 'usage_limit',
      until: '2026-11-22T14:01:00.000Z', // the reset plus usageLimit.marginSeconds
      iteration: 2,
      attempt: 1,
    });
    expect(waits[0]?.detail).toBe(
      'pacing: the 5-hour window is 93 % used (limits.pace 90 %); waiting for its reset at 2026-11-22T14:00:00.000Z',
    );
    // The wait came before the second agent started, and the clock moved through it.
    const order = events.map((event) => event.type);
    expect(order.indexOf('wait_started')).toBeLessThan(order.lastIndexOf('iteration_started'));
    expect(agent.requests).toHaveLength(3);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse('2026-11-22T14:01:00Z'));
    expect(ofType(events, 'usage_windows')[0]?.pace).toBe(0.9);
  });

  it('does not wait with pacing off, or below the threshold', async () => {
    for (const [pace, use] of [
      [0, 0.99],
      [0.95, 0.94],
    ] as const) {
      const dir = await loopDir();
      const clock = clockAt(START);
      const { result, events } = await run(
        dir,
        [passReporting('STORY-001', use), passReporting('STORY-002', use), pass('STORY-003')],
        clock,
        pace,
      );
      expect(result.state, `pace ${pace}`).toBe('COMPLETE');
      expect(ofType(events, 'wait_started'), `pace ${pace}`).toEqual([]);
    }
  });

  it('paces on the weekly window too, waiting for the window that resets last', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    const { events } = await run(
      dir,
      [passReporting('STORY-001', 0.95, 0.97), pass('STORY-002'), pass('STORY-003')],
      clock,
      0.9,
    );
    const wait = ofType(events, 'wait_started')[0];
    expect(wait?.until).toBe('2026-11-26T09:01:00.000Z');
    expect(wait?.detail).toContain('the weekly window is 97 % used');
  });

  it('starts at once when the windows reset while ralph was away', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    await run(dir, [passReporting('STORY-001', 0.99)], clock, 0);
    const later = clockAt('2026-11-22T14:30:00Z'); // past the 5-hour reset
    const { events } = await run(dir, [pass('STORY-002'), pass('STORY-003')], later, 0.9);
    expect(ofType(events, 'wait_started')).toEqual([]);
  });

  it('resumes at once after a usage limit whose reset has already passed', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    const limited: Step = () =>
      Promise.resolve({
        exitCode: 1,
        rateLimits: [
          {
            status: 'rejected',
            resetsAt: Date.parse('2026-11-22T11:55:00Z'),
            rateLimitType: 'five_hour',
          },
        ],
        finalText: "You've hit your limit",
      });
    const { events, agent } = await run(
      dir,
      [limited, pass('STORY-001'), pass('STORY-002'), pass('STORY-003')],
      clock,
      0,
    );
    expect(ofType(events, 'iteration_finished')[0]).toMatchObject({
      classification: 'usage_limit',
      willRetry: true,
    });
    // No wait at all: neither until the stated reset nor the unknown-reset backoff.
    expect(ofType(events, 'wait_started')).toEqual([]);
    expect(clock.sleeps.filter((ms) => ms > 0)).toEqual([]);
    expect(agent.requests.length).toBeGreaterThanOrEqual(2);
  });

  it("turns Claude Code's api_retry lines into agent_retry events while the agent runs", async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    const retrying: Step = async (request, loop) => {
      request.onEvent?.({
        type: 'api_retry',
        attempt: 2,
        maxRetries: 10,
        delayMs: 1158,
        errorStatus: 529,
        error: 'overloaded',
      });
      return pass('STORY-001')(request, loop);
    };
    const { events } = await run(dir, [retrying], clock, 0);
    const retry = ofType(events, 'agent_retry')[0];
    expect(retry).toMatchObject({
      iteration: 1,
      attempt: 1,
      retry: 2,
      maxRetries: 10,
      delayMs: 1158,
      errorStatus: 529,
      error: 'overloaded',
    });
    const order = events.map((event) => event.type);
    expect(order.indexOf('agent_retry')).toBeLessThan(order.indexOf('iteration_finished'));
  });
});
