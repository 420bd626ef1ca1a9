import { describe, expect, it } from 'vitest';
import { eventTypeOf, parseEvent, parseEventLine } from './events.js';

const finished = {
  type: 'iteration_finished',
  at: '2026-11-22T10:01:01.000Z',
  iteration: 1,
  attempt: 1,
  story: { id: 'STORY-001', title: 'Export' },
  outcome: 'no_progress',
  detail: 'no story was marked passing',
  newlyPassing: [],
  storiesPassing: 0,
  storiesTotal: 2,
  durationMs: 60_000,
};

describe('reading events.jsonl through the LoopEvent schema', () => {
  it('reads a known event as that event', () => {
    expect(parseEvent(finished)).toEqual(finished);
  });

  it('drops fields a newer writer added to a known event, keeping the event', () => {
    expect(parseEvent({ ...finished, fromTheFuture: 1 })).toEqual(finished);
  });

  it('keeps an event type this version does not know as unknown, with everything it said', () => {
    const line = { type: 'guard_decision', at: '2026-11-22T10:01:02.000Z', message: 'refused' };
    const event = parseEvent(line);
    expect(event).toEqual({
      type: 'unknown',
      at: line.at,
      eventType: 'guard_decision',
      raw: line,
    });
    expect(event === undefined ? undefined : eventTypeOf(event)).toBe('guard_decision');
  });

  it('keeps a known type whose fields do not fit as unknown rather than trusting it', () => {
    expect(parseEvent({ ...finished, outcome: 'exploded' })).toMatchObject({
      type: 'unknown',
      eventType: 'iteration_finished',
      raw: { outcome: 'exploded' },
    });
  });

  it('reads run_started as ralph wrote it before runs carried their iteration count', () => {
    const older = {
      type: 'run_started',
      at: '2026-11-22T10:00:00.000Z',
      loopDir: '/repo/.ralph/feature-csv',
      feature: 'feature/csv',
      resumedAfterIteration: 4,
      maxIterations: 10,
      storiesTotal: 2,
      storiesPassing: 1,
      costUsd: 0.5,
    };
    expect(parseEvent(older)).toEqual({ ...older, iteration: 4 });
  });

  it('is not an event: undefined; a blank or torn line: undefined', () => {
    expect(parseEvent({ nope: true })).toBeUndefined();
    expect(parseEvent([1, 2])).toBeUndefined();
    expect(parseEventLine('   ')).toBeUndefined();
    expect(parseEventLine('{"type":"warning","at":"x","mess')).toBeUndefined();
    expect(parseEventLine('{"type":"warning","at":"x","message":"m"}')).toEqual({
      type: 'warning',
      at: 'x',
      message: 'm',
    });
  });
});
