import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, AgentRunResult } from '../agents/types.js';
import type { Clock } from '../safety/clock.js';
import { DEFAULT_SAFETY, type SafetySettings } from '../safety/settings.js';
import { readSafety } from '../safety/store.js';
import {
  fakeAgent as sharedFakeAgent,
  expectReadableAsWritten,
  ok as baseOk,
  type Step,
} from '../../test/fixtures/core/engine-fakes.js';
import { loopOptions } from '../../test/fixtures/core/loop-options.js';
import { runLoop, type LoopDependencies, type LoopOptions } from './engine.js';
import type { LoopEvent } from './events.js';

/**
 * The engine with the safety policies around it, in process: a scripted agent (no processes),
 * a clock whose sleep moves time forward at once, and safety.json in a temp loop directory.
 */

const USAGE = {
  inputTokens: 100,
  outputTokens: 20,
  cacheReadInputTokens: 1000,
  cacheCreationInputTokens: 10,
};

/** A successful run that changed nothing, with tokens (the budget and rate limits count them). */
function ok(text = 'done', costUsd = 0.01): AgentRunResult {
  return baseOk(text, { costUsd, usage: USAGE });
}

function fakeAgent(dir: string, steps: Step[], fallback?: Step) {
  return sharedFakeAgent(dir, steps, { fallback, base: () => ok() });
}

function clockAt(start: string) {
  let now = Date.parse(start);
  const sleeps: number[] = [];
  const clock: Clock & { sleeps: number[]; advance(ms: number): void } = {
    sleeps,
    now: () => new Date(now),
    sleep: (ms, signal) => {
      sleeps.push(ms);
      if (signal?.aborted !== true) now += ms;
      return Promise.resolve();
    },
    advance: (ms) => {
      now += ms;
    },
  };
  return clock;
}

const START = '2026-11-22T12:00:00Z';

async function loopDir(stories = ['STORY-001', 'STORY-002'], extra: Record<string, unknown> = {}) {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'ralph-safety-loop-')));
  await mkdir(join(dir, 'logs'), { recursive: true });
  const prd = {
    userStories: stories.map((id, index) => ({
      id,
      title: `story ${index + 1}`,
      acceptanceCriteria: ['works'],
      priority: index + 1,
      passes: false,
      notes: '',
      ...extra,
    })),
  };
  await writeFile(join(dir, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
  return dir;
}

function pass(id: string): Step {
  return async (_request, dir) => {
    const file = join(dir, 'prd.json');
    const prd = JSON.parse(await readFile(file, 'utf8')) as {
      userStories: { id: string; passes: boolean }[];
    };
    for (const story of prd.userStories) if (story.id === id) story.passes = true;
    await writeFile(file, `${JSON.stringify(prd, null, 2)}\n`);
    return { finalText: '<promise>STORY_COMPLETE</promise>' };
  };
}

const errorResult =
  (text: string, status?: number): Step =>
  () =>
    Promise.resolve({
      exitCode: 1,
      result: { ...ok().result!, isError: true, apiErrorStatus: status, resultText: text },
      finalText: text,
    });

function safety(overrides: Partial<SafetySettings> = {}): SafetySettings {
  return { ...DEFAULT_SAFETY, ...overrides };
}

async function run(
  dir: string,
  agent: AgentAdapter,
  clock: Clock,
  overrides: Partial<LoopOptions> = {},
  deps: Partial<LoopDependencies> = {},
) {
  const events: LoopEvent[] = [];
  const result = await runLoop(loopOptions(dir, overrides), {
    agent,
    clock,
    signal: new AbortController().signal,
    reporters: [{ onEvent: (event) => void events.push(event) }],
    random: () => 0.5,
    timeZone: 'UTC',
    ...deps,
  });
  expectReadableAsWritten(events);
  return { result, events };
}

const ofType = <T extends LoopEvent['type']>(events: LoopEvent[], type: T) =>
  events.filter((event): event is Extract<LoopEvent, { type: T }> => event.type === type);

describe('circuit breaker in the loop', () => {
  it('opens after three iterations without progress and ends the run with exit 1', async () => {
    const dir = await loopDir();
    const agent = fakeAgent(dir, []);
    const { result, events } = await run(dir, agent, clockAt(START));
    expect(result).toMatchObject({
      state: 'ERROR',
      exitCode: 1,
      stopReason: 'breaker',
      iterations: 3,
    });
    expect(result.reason).toBe(
      'circuit breaker open: no progress in 3 iterations in a row (last: no story was marked passing)',
    );
    expect(result.hint).toContain('--reset-breaker');
    expect(ofType(events, 'breaker_changed')).toMatchObject([{ from: 'CLOSED', to: 'OPEN' }]);
    expect(ofType(events, 'iteration_finished').at(-1)?.breaker).toMatchObject({
      state: 'OPEN',
      noProgress: 3,
    });
    expect((await readSafety(dir, new Date())).breaker.state).toBe('OPEN');
  });

  it('refuses to start while open, goes half-open after the cooldown, and closes on progress', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    await run(dir, fakeAgent(dir, []), clock);

    clock.advance(10 * 60_000);
    const early = fakeAgent(dir, []);
    const refused = await run(dir, early, clock);
    expect(refused.result).toMatchObject({ stopReason: 'breaker', exitCode: 1, iterations: 0 });
    expect(early.requests).toHaveLength(0);

    clock.advance(21 * 60_000);
    const later = fakeAgent(dir, [pass('STORY-001'), pass('STORY-002')]);
    const { result, events } = await run(dir, later, clock);
    expect(ofType(events, 'breaker_changed').map((e) => `${e.from}→${e.to}`)).toEqual([
      'OPEN→HALF_OPEN',
      'HALF_OPEN→CLOSED',
    ]);
    expect(result.state).toBe('COMPLETE');
  });

  it('reopens at once when the half-open iteration makes no progress', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    await run(dir, fakeAgent(dir, []), clock);
    clock.advance(31 * 60_000);
    const agent = fakeAgent(dir, []);
    const { result } = await run(dir, agent, clock);
    expect(agent.requests).toHaveLength(1);
    expect(result.reason).toMatch(/^circuit breaker open: no progress after the cooldown/);
  });

  it('--reset-breaker closes it before the run', async () => {
    const dir = await loopDir();
    const clock = clockAt(START);
    await run(dir, fakeAgent(dir, []), clock);
    const agent = fakeAgent(dir, [pass('STORY-001'), pass('STORY-002')]);
    const { result, events } = await run(dir, agent, clock, {
      safety: safety({ resetBreaker: true }),
    });
    expect(ofType(events, 'breaker_changed')[0]).toMatchObject({
      from: 'OPEN',
      to: 'CLOSED',
      reason: 'reset by --reset-breaker',
    });
    expect(result.state).toBe('COMPLETE');
  });

  it('opens on the same error five times (numbers and ids differ)', async () => {
    const dir = await loopDir();
    const agent = fakeAgent(dir, [], (request) =>
      errorResult(
        `Prompt is too long · the request is ~${request.prompt.length + agentCalls()} tokens`,
        400,
      )(request, dir),
    );
    let calls = 0;
    const agentCalls = () => (calls += 1);
    const { result } = await run(dir, agent, clockAt(START));
    expect(agent.requests).toHaveLength(5);
    expect(result.reason).toMatch(
      /^circuit breaker open: the same error 5 times in a row: agent reported an error \(API 400\): Prompt is too long/,
    );
  });

  it('opens after two iterations in which the agent was denied tools', async () => {
    const dir = await loopDir();
    const denied: Step = () =>
      Promise.resolve({
        result: {
          ...ok().result!,
          permissionDenials: [{ toolName: 'Bash', toolUseId: 'toolu_1' }],
        },
      });
    const { result } = await run(dir, fakeAgent(dir, [denied, denied]), clockAt(START));
    expect(result.reason).toBe(
      'circuit breaker open: the agent was denied permission in 2 iterations in a row (Bash)',
    );
  });
});

describe('retries', () => {
  it('retries a transient failure with backoff (2 s, 4 s), each attempt with its own log, then succeeds', async () => {
    const dir = await loopDir(['STORY-001']);
    const overloaded = errorResult('API Error: 529 Overloaded', 529);
    const agent = fakeAgent(dir, [overloaded, overloaded, pass('STORY-001')]);
    const clock = clockAt(START);
    const { result, events } = await run(dir, agent, clock);
    expect(result).toMatchObject({ state: 'COMPLETE', iterations: 1 });
    expect(agent.requests.map((request) => request.logFile)).toEqual(
      [1, 2, 3].map((m) => join(dir, 'logs', `iteration-1-attempt-${m}.jsonl`)),
    );
    const waits = ofType(events, 'wait_started');
    expect(waits.map((wait) => [wait.reason, wait.durationMs, wait.attempt])).toEqual([
      ['retry', 2000, 2],
      ['retry', 4000, 3],
    ]);
    expect(
      ofType(events, 'iteration_finished').map((e) => [e.attempt, e.classification, e.willRetry]),
    ).toEqual([
      [1, 'transient', true],
      [2, 'transient', true],
      [3, 'none', false],
    ]);
    // Only the last attempt is judged by the breaker; the run's cost counts every attempt.
    expect(result.costUsd).toBeCloseTo(0.03);
  });

  it('gives up after three retries: the iteration fails and the loop goes on', async () => {
    const dir = await loopDir(['STORY-001']);
    const overloaded = errorResult('API Error: 529 Overloaded', 529);
    const agent = fakeAgent(dir, [
      overloaded,
      overloaded,
      overloaded,
      overloaded,
      pass('STORY-001'),
    ]);
    const { result, events } = await run(dir, agent, clockAt(START));
    expect(ofType(events, 'wait_started').map((w) => w.durationMs)).toEqual([2000, 4000, 8000]);
    const finished = ofType(events, 'iteration_finished');
    expect(finished.slice(0, 4).map((e) => [e.iteration, e.attempt])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
    ]);
    expect(finished[3]).toMatchObject({
      outcome: 'error',
      willRetry: false,
      breaker: { noProgress: 1 },
    });
    expect(finished[4]).toMatchObject({ iteration: 2, attempt: 1, outcome: 'complete' });
    expect(result.state).toBe('COMPLETE');
  });

  it('stops at once on a fatal error with exit 2 and says what to do', async () => {
    const dir = await loopDir();
    const agent = fakeAgent(dir, [errorResult('Invalid API key · Fix external API key', 401)]);
    const { result } = await run(dir, agent, clockAt(START));
    expect(result).toMatchObject({
      state: 'ERROR',
      exitCode: 2,
      stopReason: 'fatal',
      iterations: 1,
    });
    expect(result.hint).toContain('ANTHROPIC_API_KEY');
    expect(agent.requests).toHaveLength(1);
  });

  it('treats an agent CLI that cannot start as fatal', async () => {
    const dir = await loopDir();
    const missing: Step = () =>
      Promise.resolve({
        spawnError: 'ENOENT',
        exitCode: undefined,
        result: undefined,
        finalText: undefined,
        lineCount: 0,
      });
    const { result } = await run(dir, fakeAgent(dir, [missing]), clockAt(START));
    expect(result).toMatchObject({ exitCode: 2, stopReason: 'fatal' });
    expect(result.reason).toBe('fatal: the agent CLI could not be started (ENOENT)');
  });
});

describe('usage limits', () => {
  const resetAt = Date.parse('2026-11-22T14:00:00Z');
  const limited: Step = () =>
    Promise.resolve({
      exitCode: 1,
      rateLimits: [{ status: 'rejected', resetsAt: resetAt, rateLimitType: 'five_hour' }],
      result: {
        ...ok().result!,
        isError: true,
        resultText: "You've hit your limit · resets 2pm (UTC)",
        costUsd: 0,
      },
      finalText: "You've hit your limit · resets 2pm (UTC)",
    });

  it('waits until the reset plus a minute, then resumes the same story as the next attempt', async () => {
    const dir = await loopDir(['STORY-001']);
    const clock = clockAt(START);
    const agent = fakeAgent(dir, [limited, pass('STORY-001')]);
    const { result, events } = await run(dir, agent, clock);
    expect(result).toMatchObject({ state: 'COMPLETE', iterations: 1 });
    const limit = ofType(events, 'usage_limit')[0];
    expect(limit).toMatchObject({
      action: 'wait',
      resetAt: '2026-11-22T14:00:00.000Z',
      source: 'rate_limit_event',
      window: 'five_hour',
    });
    const wait = ofType(events, 'wait_started')[0];
    expect(wait).toMatchObject({
      reason: 'usage_limit',
      until: '2026-11-22T14:01:00.000Z',
      iteration: 1,
      attempt: 2,
    });
    expect(ofType(events, 'wait_progress')).toHaveLength(120);
    expect(agent.requests[1]?.logFile).toBe(join(dir, 'logs', 'iteration-1-attempt-2.jsonl'));
    expect(agent.requests[1]?.prompt).toBe(agent.requests[0]?.prompt);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse('2026-11-22T14:01:00Z'));
    expect((await readSafety(dir, clock.now())).usageLimit.pending).toBeUndefined();
  });

  it('resumes after the margin, not the unknown-reset backoff, when the reset passed just before', async () => {
    const dir = await loopDir(['STORY-001']);
    const clock = clockAt(START);
    const justPassed: Step = async (request, loop) => ({
      ...(await limited(request, loop)),
      rateLimits: [
        { status: 'rejected', resetsAt: Date.parse(START) - 2000, rateLimitType: 'five_hour' },
      ],
    });
    const agent = fakeAgent(dir, [justPassed, pass('STORY-001')]);
    const { result, events } = await run(dir, agent, clock);
    expect(result).toMatchObject({ state: 'COMPLETE', iterations: 1 });
    expect(ofType(events, 'wait_started')[0]).toMatchObject({
      reason: 'usage_limit',
      until: '2026-11-22T12:00:58.000Z',
    });
    expect(ofType(events, 'wait_started')[0]?.detail).not.toContain('unknown');
    expect(agent.requests).toHaveLength(2);
  });

  it('--on-usage-limit exit pauses with exit 2; the next run waits out the rest and resumes the iteration', async () => {
    const dir = await loopDir(['STORY-001']);
    const clock = clockAt(START);
    const first = await run(dir, fakeAgent(dir, [limited]), clock, {
      safety: safety({ usageLimit: { ...DEFAULT_SAFETY.usageLimit, action: 'exit' } }),
    });
    expect(first.result).toMatchObject({
      state: 'PAUSED',
      exitCode: 2,
      stopReason: 'usage_limit',
      iterations: 1,
    });
    expect((await readSafety(dir, clock.now())).usageLimit.pending).toMatchObject({
      iteration: 1,
      attempt: 2,
      storyId: 'STORY-001',
    });

    clock.advance(60 * 60_000);
    const agent = fakeAgent(dir, [pass('STORY-001')]);
    const second = await run(dir, agent, clock, { resume: { iteration: 1, costUsd: 0 } });
    expect(ofType(second.events, 'wait_started')[0]).toMatchObject({ durationMs: 61 * 60_000 });
    // The count stays 1 while the run redoes iteration 1 (status.json must never say 0 here).
    expect(ofType(second.events, 'run_started')[0]).toMatchObject({ iteration: 1 });
    expect(agent.requests[0]?.logFile).toBe(join(dir, 'logs', 'iteration-1-attempt-2.jsonl'));
    expect(second.result).toMatchObject({ state: 'COMPLETE', iterations: 1 });
  });

  it('Ctrl+C during the wait pauses (130) and keeps the wait for the next run', async () => {
    const dir = await loopDir(['STORY-001']);
    const controller = new AbortController();
    const clock = clockAt(START);
    const events: LoopEvent[] = [];
    const { result } = await run(
      dir,
      fakeAgent(dir, [limited]),
      clock,
      {},
      {
        signal: controller.signal,
        reporters: [
          {
            onEvent: (event) => {
              events.push(event);
              if (event.type === 'wait_progress' && event.remainingMs < 100 * 60_000)
                controller.abort();
            },
          },
        ],
      },
    );
    expect(result).toMatchObject({ state: 'PAUSED', exitCode: 130, stopReason: 'interrupted' });
    expect(result.reason).toBe('interrupted during a usage-limit wait');
    expect(ofType(events, 'wait_finished')).toMatchObject([{ interrupted: true }]);
    expect((await readSafety(dir, clock.now())).usageLimit.pending?.until).toBe(
      '2026-11-22T14:01:00.000Z',
    );
  });

  it('ask: waits when the person says so, exits when nobody answers within 30 s or there is no terminal', async () => {
    const askSettings = safety({ usageLimit: { ...DEFAULT_SAFETY.usageLimit, action: 'ask' } });
    const dir = await loopDir(['STORY-001']);
    const yes = await run(
      dir,
      fakeAgent(dir, [limited, pass('STORY-001')]),
      clockAt(START),
      { safety: askSettings },
      {
        askUsageLimit: () => Promise.resolve('wait'),
      },
    );
    expect(ofType(yes.events, 'usage_limit')[0]).toMatchObject({ action: 'wait', answered: true });
    expect(yes.result.state).toBe('COMPLETE');

    const silentDir = await loopDir(['STORY-001']);
    const clock = clockAt(START);
    const silent = await run(
      silentDir,
      fakeAgent(silentDir, [limited]),
      clock,
      { safety: askSettings },
      {
        askUsageLimit: () => new Promise(() => undefined),
      },
    );
    expect(silent.result).toMatchObject({
      state: 'PAUSED',
      exitCode: 2,
      stopReason: 'usage_limit',
    });
    expect(ofType(silent.events, 'usage_limit')[0]).toMatchObject({
      action: 'exit',
      answered: false,
    });
    expect(clock.sleeps).toContain(30_000);

    const noTtyDir = await loopDir(['STORY-001']);
    const noTty = await run(noTtyDir, fakeAgent(noTtyDir, [limited]), clockAt(START), {
      safety: askSettings,
    });
    expect(noTty.result).toMatchObject({ exitCode: 2, stopReason: 'usage_limit' });
  });

  it('backs off 5, then 10 minutes when no reset time is known', async () => {
    const dir = await loopDir(['STORY-001']);
    const unknown = errorResult('Claude AI usage limit reached');
    const { events } = await run(
      dir,
      fakeAgent(dir, [unknown, unknown, pass('STORY-001')]),
      clockAt(START),
    );
    expect(ofType(events, 'wait_started').map((w) => w.durationMs)).toEqual([
      5 * 60_000,
      10 * 60_000,
    ]);
  });

  it('never treats a timed-out iteration as a usage limit', async () => {
    const dir = await loopDir(['STORY-001']);
    const hung: Step = () =>
      Promise.resolve({
        timedOut: true,
        idleTimedOut: true,
        exitCode: undefined,
        exitSignal: 'SIGTERM',
        result: undefined,
        finalText: '5-hour limit reached ∙ resets 5am',
      });
    const { events } = await run(dir, fakeAgent(dir, [hung, pass('STORY-001')]), clockAt(START));
    const first = ofType(events, 'iteration_finished')[0];
    expect(first).toMatchObject({
      outcome: 'timeout',
      classification: 'timeout',
      detail: 'no output for 5 min: agent killed',
    });
    expect(ofType(events, 'usage_limit')).toHaveLength(0);
  });
});

describe('rate limit and budget', () => {
  it('waits when the hourly call limit is reached instead of failing', async () => {
    const dir = await loopDir(['STORY-001', 'STORY-002', 'STORY-003']);
    const clock = clockAt(START);
    const agent = fakeAgent(dir, [pass('STORY-001'), pass('STORY-002'), pass('STORY-003')]);
    const { result, events } = await run(dir, agent, clock, {
      safety: safety({ rateLimit: { callsPerHour: 2, tokensPerHour: undefined } }),
    });
    expect(result.state).toBe('COMPLETE');
    const wait = ofType(events, 'wait_started')[0];
    expect(wait).toMatchObject({
      reason: 'rate_limit',
      until: '2026-11-22T13:00:00.000Z',
      iteration: 3,
    });
    expect(wait?.detail).toBe('rate limit: 2 agent calls in the last hour (limit 2)');
  });

  it('ends the run cleanly when its cost crosses --max-cost (exit 1, budget)', async () => {
    const dir = await loopDir(['STORY-001', 'STORY-002', 'STORY-003', 'STORY-004']);
    const { result, events } = await run(
      dir,
      fakeAgent(dir, [pass('STORY-001'), pass('STORY-002'), pass('STORY-003')]),
      clockAt(START),
      {
        safety: safety({ budget: { maxCostUsd: 0.025, maxStoryCostUsd: undefined } }),
      },
    );
    expect(result).toMatchObject({
      state: 'REACHED_LIMIT',
      exitCode: 1,
      stopReason: 'budget',
      iterations: 3,
    });
    expect(result.reason).toBe(
      'budget: the run has cost $0.0300, its budget is $0.0250 (--max-cost)',
    );
    expect(ofType(events, 'budget_exceeded')).toHaveLength(1);
  });

  it("honours a story's own maxCostUsd and records cost and tokens per story", async () => {
    const dir = await loopDir(['STORY-001'], { maxCostUsd: 0.015 });
    const { result, events } = await run(dir, fakeAgent(dir, []), clockAt(START));
    expect(result).toMatchObject({ stopReason: 'budget', iterations: 2 });
    expect(result.reason).toBe('budget: STORY-001 has cost $0.0200, its budget is $0.0150');
    const last = ofType(events, 'iteration_finished').at(-1);
    expect(last?.storySpend).toEqual({
      costUsd: 0.02,
      tokens: {
        inputTokens: 200,
        outputTokens: 40,
        cacheReadInputTokens: 2000,
        cacheCreationInputTokens: 20,
      },
    });
    expect(ofType(events, 'run_finished')[0]?.tokens).toEqual(last?.runSpend?.tokens);
    expect((await readSafety(dir, new Date())).budget.stories['STORY-001']?.attempts).toBe(2);
  });
});

describe('post-result grace kill', () => {
  it('counts an agent killed for lingering after a good result as a normal end', async () => {
    const dir = await loopDir(['STORY-001', 'STORY-002']);
    const lingering: Step = async (request, loop) => ({
      ...(await pass('STORY-001')(request, loop)),
      killedAfterResult: true,
      exitCode: undefined,
      exitSignal: 'SIGTERM',
    });
    const { events } = await run(
      dir,
      fakeAgent(dir, [lingering, pass('STORY-002')]),
      clockAt(START),
    );
    expect(ofType(events, 'iteration_finished')[0]).toMatchObject({
      outcome: 'progress',
      classification: 'none',
      detail: 'STORY-001 now passing (killed 30 s after its result: it did not exit)',
    });
  });
});
