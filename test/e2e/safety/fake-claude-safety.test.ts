import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../../src/core/events.js';
import { readSafety } from '../../../src/safety/store.js';
import {
  createSafetyLoop,
  fakeClock,
  groupMembers,
  isRunning,
  stream,
  transcript,
} from './fake-agent-loop.js';

/**
 * The safety policies at loop level: runLoop with an injected clock and the real Claude Code
 * adapter starting the fake `claude` for every attempt. Waits (usage limit, retry backoff) run on
 * the fake clock; agent processes, their kills and their logs are real.
 */

const START = '2026-11-22T12:00:00Z';
const epochSeconds = (iso: string) => Date.parse(iso) / 1000;

const ofType = <T extends LoopEvent['type']>(events: LoopEvent[], type: T) =>
  events.filter((event): event is Extract<LoopEvent, { type: T }> => event.type === type);

describe('circuit breaker with the fake claude', () => {
  it('opens after three iterations without progress, refuses the next run, and cools down to HALF_OPEN → CLOSED', async () => {
    const loop = await createSafetyLoop(['STORY-001']);
    await loop.agent('default', {
      jsonl: transcript('s-idle', 'I looked around; nothing changed.'),
    });
    const clock = fakeClock(START);

    const first = await loop.run(clock);
    expect(first.result).toMatchObject({
      state: 'ERROR',
      exitCode: 1,
      stopReason: 'breaker',
      iterations: 3,
    });
    expect(await loop.calls()).toBe(3);
    expect(await loop.status()).toMatchObject({
      state: 'ERROR',
      stopReason: 'breaker',
      breaker: { state: 'OPEN', noProgress: 3, thresholds: { noProgress: 3 } },
    });

    clock.advance(5 * 60_000);
    const refused = await loop.run(clock);
    expect(refused.result).toMatchObject({ stopReason: 'breaker', iterations: 0 });
    expect(await loop.calls()).toBe(3); // no agent started

    clock.advance(30 * 60_000);
    await loop.agent(4, {
      sh: loop.pass('STORY-001'),
      jsonl: transcript('s-ok', 'Done. <promise>COMPLETE</promise>'),
    });
    const cooled = await loop.run(clock);
    expect(ofType(cooled.events, 'breaker_changed').map((e) => `${e.from}→${e.to}`)).toEqual([
      'OPEN→HALF_OPEN',
      'HALF_OPEN→CLOSED',
    ]);
    expect(cooled.result).toMatchObject({ state: 'COMPLETE', exitCode: 0 });
    expect((await readSafety(loop.dir, clock.now())).breaker.state).toBe('CLOSED');
  });

  it('opens after the same error five times, ids and numbers aside', async () => {
    const loop = await createSafetyLoop(['STORY-001']);
    for (let call = 1; call <= 6; call += 1) {
      await loop.agent(call, {
        jsonl: `${stream.init(`s-${call}`)}\n${stream.result(`s-${call}`, `API Error: 400 tool use concurrency issues (request req_0${call}ABCDEF${call}, ${call * 17} ms)`, { is_error: true, api_error_status: 400 })}\n`,
        exit: 1,
      });
    }
    const { result, events } = await loop.run(fakeClock(START));
    expect(await loop.calls()).toBe(5);
    expect(result.reason).toMatch(
      /^circuit breaker open: the same error 5 times in a row: agent reported an error \(API 400\)/,
    );
    expect(ofType(events, 'iteration_finished').map((e) => e.breaker?.sameError)).toEqual([
      1, 2, 3, 4, 5,
    ]);
    expect(ofType(events, 'wait_started')).toHaveLength(0); // a 400 is not retried
  });
});

describe('usage limits with the fake claude', () => {
  it('waits out the limit on the fake clock (countdown in status.json) and resumes the same story', async () => {
    const loop = await createSafetyLoop(['STORY-001']);
    const reset = '2026-11-22T14:00:00Z';
    await loop.agent(1, {
      jsonl: `${[
        stream.init('s-limit'),
        stream.rateLimit('rejected', epochSeconds(reset)),
        stream.text('s-limit', "You've hit your limit · resets 2pm (UTC)"),
        stream.result('s-limit', "You've hit your limit · resets 2pm (UTC)", {
          is_error: true,
          total_cost_usd: 0,
        }),
      ].join('\n')}\n`,
      exit: 1,
    });
    await loop.agent(2, {
      sh: loop.pass('STORY-001'),
      jsonl: transcript('s-after', 'Done. <promise>COMPLETE</promise>'),
    });
    const clock = fakeClock(START);
    const seen: unknown[] = [];
    clock.onSleep = async () => {
      if (seen.length === 0) seen.push((await loop.status()).waiting);
    };

    const { result, events } = await loop.run(clock);
    expect(result).toMatchObject({ state: 'COMPLETE', iterations: 1 });
    expect(seen[0]).toMatchObject({
      reason: 'usage_limit',
      until: '2026-11-22T14:01:00.000Z',
      remainingSeconds: 121 * 60,
    });
    expect(ofType(events, 'usage_limit')[0]).toMatchObject({
      resetAt: '2026-11-22T14:00:00.000Z',
      action: 'wait',
    });
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(Date.parse('2026-11-22T14:01:00Z'));
    const argv2 = await loop.log(1, 2);
    expect(argv2).toContain('s-after');
    expect(await loop.log(1, 1)).toContain('rate_limit_event');
    expect((await loop.status()).waiting).toBeUndefined();
  });
});

describe('timeouts with the fake claude', () => {
  it('kills a hung agent at the idle timeout, children included, and counts a failed iteration', async () => {
    const loop = await createSafetyLoop(['STORY-001']);
    await loop.agent(1, {
      sh: [
        'sleep 300 &',
        `echo $! > '${loop.scripts}/grandchild.pid'`,
        `echo $$ > '${loop.scripts}/script.pid'`,
        `echo '${stream.init('s-hung')}'`,
        'sleep 300',
      ].join('\n'),
    });
    await loop.agent(2, { sh: loop.pass('STORY-001'), jsonl: transcript('s-ok', 'Done.') });
    const started = Date.now();
    const { result, events } = await loop.run(fakeClock(START), { safety: { idleTimeoutMs: 700 } });
    expect(Date.now() - started).toBeLessThan(15_000);
    const first = ofType(events, 'iteration_finished')[0];
    expect(first).toMatchObject({
      outcome: 'timeout',
      classification: 'timeout',
      detail: 'no output for 1 s: agent killed',
    });
    expect(ofType(events, 'usage_limit')).toHaveLength(0);
    const pids = [
      await loop.pidOfCall(1),
      Number(readFileSync(`${loop.scripts}/script.pid`, 'utf8')),
      Number(readFileSync(`${loop.scripts}/grandchild.pid`, 'utf8')),
    ];
    for (const pid of pids) expect(await isRunning(pid), `pid ${pid}`).toBe(false);
    expect(await groupMembers(pids[0]!)).toEqual([]);
    expect(result.state).toBe('COMPLETE');
  });

  it('kills an agent that printed its result but does not exit, and counts the result', async () => {
    const loop = await createSafetyLoop(['STORY-001', 'STORY-002']);
    await loop.agent(1, {
      sh: [
        loop.pass('STORY-001'),
        `echo '${stream.init('s-linger')}'`,
        `echo '${stream.result('s-linger', 'Done. <promise>STORY_COMPLETE</promise>')}'`,
        'sleep 300 &',
        `echo $! > '${loop.scripts}/lingerer.pid'`,
        'sleep 300',
      ].join('\n'),
    });
    await loop.agent(2, { sh: loop.pass('STORY-002'), jsonl: transcript('s-2', 'Done.') });
    const started = Date.now();
    const { result, events } = await loop.run(fakeClock(START), { safety: { resultGraceMs: 500 } });
    expect(Date.now() - started).toBeLessThan(15_000);
    const first = ofType(events, 'iteration_finished')[0];
    expect(first).toMatchObject({
      outcome: 'progress',
      classification: 'none',
      newlyPassing: ['STORY-001'],
    });
    expect(first?.detail).toBe(
      'STORY-001 now passing (killed 1 s after its result: it did not exit)',
    );
    const lingerer = Number(readFileSync(`${loop.scripts}/lingerer.pid`, 'utf8'));
    expect(await isRunning(lingerer)).toBe(false);
    expect(await groupMembers(await loop.pidOfCall(1))).toEqual([]);
    expect(result.state).toBe('COMPLETE');
  });
});

describe('retries with the fake claude', () => {
  it('retries an overloaded API (529) with backoff, each attempt in its own log, then succeeds', async () => {
    const loop = await createSafetyLoop(['STORY-001']);
    const overloaded = (call: number) =>
      `${stream.init(`s-${call}`)}\n${stream.result(`s-${call}`, 'API Error: 529 Overloaded. This is a server-side issue, usually temporary.', { is_error: true, api_error_status: 529, total_cost_usd: 0 })}\n`;
    await loop.agent(1, { jsonl: overloaded(1), exit: 1 });
    await loop.agent(2, { jsonl: overloaded(2), exit: 1 });
    await loop.agent(3, {
      sh: loop.pass('STORY-001'),
      jsonl: transcript('s-3', 'Done. <promise>COMPLETE</promise>'),
    });
    const clock = fakeClock(START);
    const { result, events } = await loop.run(clock);
    expect(result).toMatchObject({ state: 'COMPLETE', iterations: 1 });
    expect(
      ofType(events, 'wait_started').map((w) => [w.reason, w.durationMs, w.iteration, w.attempt]),
    ).toEqual([
      ['retry', 2000, 1, 2],
      ['retry', 4000, 1, 3],
    ]);
    expect(clock.sleeps.slice(0, 2)).toEqual([2000, 4000]);
    for (const attempt of [1, 2])
      expect(await loop.log(1, attempt)).toContain('"api_error_status":529');
    expect(await loop.log(1, 3)).toContain('s-3');
    expect(ofType(events, 'iteration_finished').map((e) => [e.attempt, e.classification])).toEqual([
      [1, 'transient'],
      [2, 'transient'],
      [3, 'none'],
    ]);
  });

  it('retries a crash before any output', async () => {
    const loop = await createSafetyLoop(['STORY-001']);
    await loop.agent(1, { exit: 3 });
    await loop.agent(2, { sh: loop.pass('STORY-001'), jsonl: transcript('s-2', 'Done.') });
    const { events } = await loop.run(fakeClock(START));
    expect(ofType(events, 'iteration_finished')[0]).toMatchObject({
      classification: 'transient',
      classificationWhy: 'the agent crashed before printing anything (exit code 3)',
      willRetry: true,
    });
  });
});
