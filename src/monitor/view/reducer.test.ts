import { describe, expect, it } from 'vitest';
import { parseEvent, type MonitorEvent } from '../events.js';
import { derive } from './derive.js';
import { SAMPLE_EVENTS, SAMPLE_START } from '../../../test/fixtures/monitor/sample-events.js';
import { initialView, MAX_RECENT, reduceView, type MonitorView } from './reducer.js';

function fold(events: readonly unknown[], view: MonitorView = initialView()): MonitorView {
  return events
    .map((each) => parseEvent(each))
    .filter((each): each is MonitorEvent => each !== undefined)
    .reduce((state, event) => reduceView(state, event), view);
}

describe('reduceView', () => {
  const view = fold(SAMPLE_EVENTS);

  it('tracks the run: state, iteration, current story and model', () => {
    expect(view).toMatchObject({
      seq: SAMPLE_EVENTS.length,
      state: 'RUNNING',
      feature: 'feature/csv',
      iteration: 3,
      maxIterations: 10,
      storiesPassing: 1,
      storiesTotal: 2,
      current: { iteration: 3, storyId: 'STORY-002', model: 'opus' },
    });
  });

  it('shows the model the agent reports in its init line (ralph may have asked for none)', () => {
    const started = {
      type: 'iteration_started',
      at: '2026-11-22T10:09:00.000Z',
      iteration: 4,
      attempt: 1,
      story: { id: 'STORY-002', title: 'Import' },
      logFile: 'logs/iteration-4-attempt-1.jsonl',
      promptBytes: 10,
    };
    const init = {
      type: 'agent_started',
      at: '2026-11-22T10:09:01.000Z',
      iteration: 4,
      attempt: 1,
      sessionId: 's-4',
      model: 'claude-sonnet-5',
    };
    const next = fold([started, init], view);
    expect(next.current).toMatchObject({ iteration: 4, model: 'claude-sonnet-5' });
    expect(next.iterations.at(-1)).toMatchObject({ iteration: 4, model: 'claude-sonnet-5' });
  });

  it('adds cost and tokens per run, per story and per iteration', () => {
    expect(view.costUsd).toBeCloseTo(0.75);
    expect(view.tokens).toEqual({ input: 1200, output: 200, cacheRead: 2000, cacheCreation: 0 });
    expect(view.stories).toEqual([
      expect.objectContaining({
        id: 'STORY-001',
        attempts: 2,
        durationMs: 120_000,
        costUsd: 0.75,
        passing: true,
        lastOutcome: 'progress',
      }),
      expect.objectContaining({ id: 'STORY-002', attempts: 0, passing: false }),
    ]);
    expect(view.iterations.map((row) => [row.iteration, row.outcome, row.costUsd])).toEqual([
      [1, 'no_progress', 0.25],
      [2, 'progress', 0.5],
      [3, undefined, undefined],
    ]);
  });

  it('keeps the last tool calls, and every other event as a readable line', () => {
    expect(view.tools.map((line) => line.text)).toEqual([
      '· Write src/csv.ts',
      '· Bash npm test',
      '· Edit src/csv.ts',
      '· Read src/ui.tsx',
    ]);
    const tools = SAMPLE_EVENTS.filter((each) => each.type === 'agent_tool_use').length;
    expect(view.recent).toHaveLength(SAMPLE_EVENTS.length - tools);
    expect(view.recent.find((line) => line.text.startsWith('guard_decision'))).toMatchObject({
      kind: 'other',
      text: 'guard_decision: rm -rf / refused',
    });
  });

  it('follows the safety policies: breaker, calls against the limit, a wait', () => {
    expect(view.safety.breaker).toEqual({ state: 'CLOSED', noProgress: 1, noProgressLimit: 3 });
    expect(view.safety.rate).toEqual({ calls: 1, limit: 100 });
    const waiting = fold(
      [
        {
          type: 'breaker_changed',
          at: '2026-11-22T10:04:00.000Z',
          from: 'CLOSED',
          to: 'OPEN',
          reason: '3 iterations without progress',
          breaker: {
            state: 'OPEN',
            noProgress: 3,
            sameError: 0,
            permissionDenials: 0,
            thresholds: { noProgress: 3, sameError: 5, permissionDenials: 2 },
          },
        },
        {
          type: 'wait_started',
          at: '2026-11-22T10:05:00.000Z',
          reason: 'usage_limit',
          until: '2026-11-22T10:35:00.000Z',
          durationMs: 1_800_000,
          detail: '5-hour limit reached',
        },
      ],
      view,
    );
    expect(waiting.safety.breaker).toMatchObject({
      state: 'OPEN',
      reason: '3 iterations without progress',
    });
    expect(waiting.safety.wait).toMatchObject({
      reason: 'usage_limit',
      until: '2026-11-22T10:35:00.000Z',
    });
    const now = Date.parse('2026-11-22T10:33:30.000Z');
    expect(derive(waiting, now)).toMatchObject({ waitLeftMs: 90_000, waitReason: 'usage limit' });
    const over = fold(
      [
        {
          type: 'wait_finished',
          at: '2026-11-22T10:35:00.000Z',
          reason: 'usage_limit',
          interrupted: false,
        },
      ],
      waiting,
    );
    expect(over.safety.wait).toBeUndefined();
    expect(over.recent.at(-1)?.text).toBe('⏵ usage limit wait over');
  });

  it('counts agent calls in the last hour, and when the oldest leaves the window', () => {
    const derived = derive(view, SAMPLE_START + 130_000);
    expect(derived.callsThisHour).toBe(3);
    expect(derived.callsFreeInMs).toBe(3_600_000 + 1000 - 130_000);
    expect(derived.iterationMs).toBe(5000);
    expect(derived.elapsedMs).toBe(130_000);
    expect(derived.lastFinished?.iteration).toBe(2);
    expect(derive(view, SAMPLE_START + 4_000_000).callsThisHour).toBe(0);
  });

  it('finishes, then a resumed run carries the cost over', () => {
    const finished = fold(
      [
        {
          type: 'run_finished',
          at: '2026-11-22T10:03:00.000Z',
          state: 'PAUSED',
          reason: 'interrupted',
          exitCode: 130,
          iterations: 3,
          storiesPassing: 1,
          storiesTotal: 2,
          costUsd: 0.75,
        },
      ],
      view,
    );
    expect(finished).toMatchObject({
      state: 'PAUSED',
      exitReason: 'interrupted',
      current: undefined,
    });
    expect(derive(finished, SAMPLE_START + 999_999).elapsedMs).toBe(180_000);
    const resumed = fold(
      [
        {
          type: 'run_started',
          at: '2026-11-22T11:00:00.000Z',
          loopDir: '/repo/.ralph/feature-csv',
          feature: 'feature/csv',
          resumedAfterIteration: 3,
          iteration: 3,
          maxIterations: 10,
          storiesTotal: 2,
          storiesPassing: 1,
          costUsd: 0.75,
        },
      ],
      finished,
    );
    expect(resumed).toMatchObject({ state: 'RUNNING', iteration: 3, costUsd: 0.75 });
    expect(resumed.exitReason).toBeUndefined();
    expect(resumed.stories[0]?.attempts).toBe(2);
    // A new run after a finished one numbers on from it: the views say 3/13, as status.json does.
    const rerun = fold(
      [
        {
          type: 'run_started',
          at: '2026-11-22T12:00:00.000Z',
          loopDir: '/repo/.ralph/feature-csv',
          feature: 'feature/csv',
          resumedAfterIteration: 0,
          iteration: 3,
          maxIterations: 13,
          storiesTotal: 2,
          storiesPassing: 2,
          costUsd: 0,
        },
      ],
      finished,
    );
    expect(rerun).toMatchObject({ iteration: 3, maxIterations: 13 });
  });

  it('never throws on junk, and bounds what it keeps', () => {
    expect(parseEvent({ nope: true })).toBeUndefined();
    expect(parseEvent({ type: 'iteration_finished', at: 'x' })).toMatchObject({
      type: 'unknown',
      eventType: 'iteration_finished',
    });
    let state = initialView();
    for (let i = 0; i < MAX_RECENT + 50; i++) {
      state = reduceView(state, { type: 'agent_text', at: 'x', iteration: 1, text: `line ${i}` });
    }
    expect(state.recent).toHaveLength(MAX_RECENT);
    expect(state.recent.at(-1)?.text).toBe(`“line ${MAX_RECENT + 49}”`);
  });

  it('does not change the view it was given', () => {
    const before = JSON.stringify(view);
    fold(SAMPLE_EVENTS, view);
    expect(JSON.stringify(view)).toBe(before);
  });
});
