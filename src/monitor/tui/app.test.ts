import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanup, render } from 'ink-testing-library';
import { createElement as h } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_EVENTS, SAMPLE_START } from '../../../test/fixtures/monitor/sample-events.js';
import { parseEvent, type MonitorEvent } from '../events.js';
import { initialView, reduceView, type MonitorView } from '../view/reducer.js';
import { bar, MonitorApp } from './app.js';
import { LiveMonitor } from './live.js';

const view: MonitorView = SAMPLE_EVENTS.map((each) => parseEvent(each))
  .filter((each): each is MonitorEvent => each !== undefined)
  .reduce((state, event) => reduceView(state, event), initialView());

let savedTz: string | undefined;
beforeAll(() => {
  savedTz = process.env.TZ;
  process.env.TZ = 'UTC'; // clock times in the frames
});
afterAll(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});
afterEach(() => {
  cleanup();
});

const frame = (props: Partial<Parameters<typeof MonitorApp>[0]> = {}): string => {
  const { lastFrame } = render(
    h(MonitorApp, {
      view,
      now: SAMPLE_START + 135_000,
      width: 80,
      height: 23, // a 24-row terminal: the last row stays free for the cursor
      color: false,
      name: '.ralph/feature-csv',
      ...props,
    }),
  );
  return lastFrame() ?? '';
};

describe('MonitorApp (80×24)', () => {
  it('shows the whole state of a running loop', () => {
    expect(frame()).toMatchInlineSnapshot(`
      "ralph monitor · feature/csv  RUNNING  updated 10:02:10
      Iteration 3/10 · STORY-002 Add a download button
      Model opus · elapsed 2m15s · iteration 10s · last 1m00s
      Stories [██████████░░░░░░░░░░] 1/2 passing
      Calls 3/100 this hour (next frees in 57m46s) · breaker CLOSED (no progress 1/3)
      Usage -
      Cost $0.7500 run · $0.0000 story · $0.5000 last iteration
      Tokens 3.4k run · 0 story · 1.9k last iteration
      Last tool calls
      10:00:03 · Write src/csv.ts
      10:00:04 · Bash npm test
      10:01:10 · Edit src/csv.ts
      10:02:10 · Read src/ui.tsx
      Recent events
      10:00:00 run started: feature/csv, 0/2 passing, up to 10 iterations
      10:00:01 ▶ iteration 1: STORY-001 Export the table as CSV [sonnet]
      10:00:02 “I will write the exporter first.”
      10:01:01 ✗ iteration 1 no_progress: no story was marked passing (60.0 s, $0.250…
      10:01:02 guard_decision: rm -rf / refused
      10:01:03 ▶ iteration 2: STORY-001 Export the table as CSV [sonnet]
      10:02:03 ✓ iteration 2 progress: STORY-001 now passing (60.0 s, $0.5000) — 1/2 …
      10:02:05 ▶ iteration 3: STORY-002 Add a download button [opus]
      q quit · .ralph/feature-csv"
    `);
  });

  it('a new loop directory, before any run', () => {
    expect(frame({ view: initialView(), now: SAMPLE_START })).toMatchInlineSnapshot(`
      "ralph monitor · .ralph/feature-csv  NEW
      Iteration 0/?
      Model - · elapsed - · iteration - · last -
      Stories [░░░░░░░░░░░░░░░░░░░░] 0/0 passing
      Calls 0 this hour · breaker CLOSED
      Usage -
      Cost $0.0000 run · $0.0000 story · - last iteration
      Tokens 0 run · - story · - last iteration
      Last tool calls




      Recent events








      q quit · .ralph/feature-csv"
    `);
  });

  it('fits the terminal: no line wider than 80, exactly the height', () => {
    const lines = frame().split('\n');
    expect(lines).toHaveLength(23);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('shows a usage-limit wait countdown and an open breaker', () => {
    const waiting = [
      {
        type: 'breaker_changed',
        at: '2026-11-22T10:02:20.000Z',
        from: 'CLOSED',
        to: 'OPEN',
        reason: 'no progress',
        breaker: {
          state: 'OPEN',
          noProgress: 3,
          sameError: 0,
          permissionDenials: 0,
          thresholds: { noProgress: 3, sameError: 5, permissionDenials: 2 },
          reason: 'no progress',
        },
      },
      {
        type: 'wait_started',
        at: '2026-11-22T10:02:30.000Z',
        reason: 'usage_limit',
        until: '2026-11-22T10:30:00.000Z',
        durationMs: 1_650_000,
        detail: 'usage limit',
      },
    ]
      .map((each) => parseEvent(each))
      .filter((each): each is MonitorEvent => each !== undefined)
      .reduce((state, event) => reduceView(state, event), view);
    const text = frame({ view: waiting, now: Date.parse('2026-11-22T10:10:00.000Z') });
    expect(text).toContain('waiting: usage limit, resumes in 20m00s');
    expect(text).toContain('breaker OPEN');
  });

  it("shows the usage windows and Claude Code's retry of an API request", () => {
    const events = [
      {
        type: 'usage_windows',
        at: '2026-11-22T10:02:20.000Z',
        windows: {
          five_hour: { utilization: 0.91, resetsAt: '2026-11-22T12:00:00.000Z' },
          seven_day: { utilization: 0.3, resetsAt: '2026-11-26T09:00:00.000Z' },
        },
        pace: 0.9,
      },
      {
        type: 'agent_retry',
        at: '2026-11-22T10:02:25.000Z',
        iteration: 3,
        attempt: 1,
        retry: 2,
        maxRetries: 10,
        delayMs: 1158,
        errorStatus: 529,
        error: 'overloaded',
      },
    ]
      .map((each) => parseEvent(each))
      .filter((each): each is MonitorEvent => each !== undefined)
      .reduce((state, event) => reduceView(state, event), view);
    const text = frame({ view: events, now: Date.parse('2026-11-22T10:10:00.000Z') });
    expect(text).toContain('retrying (attempt 2 of 10, 529 overloaded, next in 1s)');
    expect(text).toContain('Usage 5-hour 91 %, pacing (resets in 1h50m) · weekly 30 %');
    // The retry belongs to its attempt: gone once the iteration finishes.
    expect(events.safety.retry).toBeDefined();
    const finished = reduceView(events, {
      type: 'iteration_finished',
      at: '2026-11-22T10:03:00.000Z',
      iteration: 3,
      attempt: 1,
      story: { id: 'STORY-002', title: 'Add a download button' },
      outcome: 'progress',
      detail: 'story complete',
      newlyPassing: ['STORY-002'],
      storiesPassing: 2,
      storiesTotal: 2,
      durationMs: 60_000,
    });
    expect(finished.safety.retry).toBeUndefined();
    expect(finished.safety.usage?.pace).toBe(0.9);
  });

  it('writes no colour codes with color off (NO_COLOR)', () => {
    // eslint-disable-next-line no-control-regex -- the escape character is what is checked
    expect(frame({ color: false })).not.toMatch(/\u001b\[/);
  });

  it('draws the progress bar in proportion', () => {
    expect(bar(1, 2, 10)).toBe('[█████░░░░░]');
    expect(bar(0, 0, 4)).toBe('[░░░░]');
    expect(bar(5, 4, 4)).toBe('[████]');
  });
});

describe('LiveMonitor', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-tui-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('shows a new event within a second of it being appended', async () => {
    const { lastFrame } = render(
      h(LiveMonitor, { loopDir: dir, name: 'loop', color: false, pollMs: 0 }),
    );
    const events = join(dir, 'events.jsonl');
    await appendFile(events, `${JSON.stringify(SAMPLE_EVENTS[0])}\n`);
    await waitFor(() => lastFrame()?.includes('0/2 passing') === true, 10_000);
    // pollMs 0: only the folder watch can deliver, so the update does not wait for a poll.
    // How fast it comes is measured in tmux (test/e2e/monitor/tmux.test.ts), not asserted.
    await appendFile(events, `${JSON.stringify(SAMPLE_EVENTS[1])}\n`);
    await waitFor(
      () => lastFrame()?.includes('STORY-001 Export the table as CSV') === true,
      10_000,
    );
  });
});

async function waitFor(check: () => boolean, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
