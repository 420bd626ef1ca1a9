import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../safety/clock.js';
import { RalphError } from '../util/errors.js';
import { loopOptions } from '../../test/fixtures/core/loop-options.js';
import {
  clock,
  fakeAgent,
  finished,
  loopDir,
  ok,
  pass,
  run,
  STORIES,
  type Step,
} from '../../test/fixtures/core/engine-fakes.js';
import { runLoop } from './engine.js';
import type { LoopEvent } from './events.js';

describe('runLoop', () => {
  it('runs one story per iteration in order until every story passes', async () => {
    const dir = await loopDir();
    const agent = fakeAgent(dir, [
      pass('STORY-001'),
      pass('STORY-002'),
      pass('STORY-003', '<promise>COMPLETE</promise>'),
    ]);
    const { result, events } = await run(dir, agent);
    expect(result).toMatchObject({ state: 'COMPLETE', exitCode: 0, iterations: 3 });
    expect(result.costUsd).toBeCloseTo(0.03);
    expect(finished(events).map((event) => [event.story.id, event.outcome])).toEqual([
      ['STORY-001', 'progress'],
      ['STORY-002', 'progress'],
      ['STORY-003', 'complete'],
    ]);
    expect(agent.requests[1]?.prompt).toContain('Work on **STORY-002: story 2**');
    expect(agent.requests[0]?.logFile).toBe(join(dir, 'logs', 'iteration-1-attempt-1.jsonl'));
  });

  it('stops at max iterations with exit 1 when no story passes', async () => {
    const dir = await loopDir();
    const { result, events } = await run(dir, fakeAgent(dir, []), { maxIterations: 2 });
    expect(result).toMatchObject({ state: 'REACHED_LIMIT', exitCode: 1, iterations: 2 });
    expect(finished(events).map((event) => event.outcome)).toEqual(['no_progress', 'no_progress']);
  });

  it('does not believe COMPLETE while stories are open', async () => {
    const dir = await loopDir();
    const agent = fakeAgent(dir, [pass('STORY-001', '<promise>COMPLETE</promise>')]);
    const { result, events } = await run(dir, agent, { maxIterations: 1 });
    expect(result.state).toBe('REACHED_LIMIT');
    const doubt = events.find((event) => event.type === 'complete_not_believed');
    expect(doubt).toMatchObject({ openStories: ['STORY-002', 'STORY-003'] });
  });

  it('restores a task list whose acceptance criteria the agent rewrote, keeping its passes change', async () => {
    const dir = await loopDir();
    const file = join(dir, 'prd.json');
    const original = await readFile(file, 'utf8');
    const tamper: Step = async () => {
      const prd = JSON.parse(original) as {
        userStories: { passes: boolean; acceptanceCriteria: string[] }[];
      };
      prd.userStories[0]!.passes = true;
      prd.userStories[1]!.acceptanceCriteria = ['nothing to do'];
      await writeFile(file, JSON.stringify(prd));
      return {};
    };
    const { events } = await run(dir, fakeAgent(dir, [tamper]), { maxIterations: 1 });
    const restored = events.find((event) => event.type === 'task_list_restored');
    expect(restored).toMatchObject({
      problems: ['changed acceptanceCriteria of STORY-002'],
      kept: ['STORY-001 passes: true'],
    });
    expect(finished(events)[0]?.outcome).toBe('error');
    // The original text, byte for byte, with only STORY-001's passes flipped.
    expect(await readFile(file, 'utf8')).toBe(
      original.replace('"passes": false', '"passes": true'),
    );
  });

  it('restores the snapshot when the agent leaves invalid JSON or removes a story', async () => {
    const dir = await loopDir();
    const file = join(dir, 'prd.json');
    const original = await readFile(file, 'utf8');
    const breakIt: Step = async () => {
      await writeFile(file, '{ "userStories": [');
      return {};
    };
    const removeOne: Step = async () => {
      const prd = JSON.parse(original) as { userStories: unknown[] };
      prd.userStories.pop();
      await writeFile(file, JSON.stringify(prd));
      return {};
    };
    const { events } = await run(dir, fakeAgent(dir, [breakIt, removeOne]), { maxIterations: 2 });
    const problems = events
      .filter((event) => event.type === 'task_list_restored')
      .map((event) => event.problems[0]);
    expect(problems[0]).toMatch(/^left the task list unreadable/);
    expect(problems[1]).toBe('removed or renamed STORY-003');
    expect(await readFile(file, 'utf8')).toBe(original);
  });

  it('resumes with the iteration count and cost of a paused run', async () => {
    const dir = await loopDir();
    const agent = fakeAgent(dir, [pass('STORY-001')]);
    // -n counts this run's iterations; the numbering goes on from the paused run's.
    const { result, events } = await run(dir, agent, {
      maxIterations: 1,
      resume: { iteration: 4, costUsd: 1.5 },
    });
    expect(events[0]).toMatchObject({
      type: 'run_started',
      resumedAfterIteration: 4,
      maxIterations: 5,
      costUsd: 1.5,
    });
    expect(agent.requests[0]?.logFile).toBe(join(dir, 'logs', 'iteration-5-attempt-1.jsonl'));
    expect(result).toMatchObject({ state: 'REACHED_LIMIT', iterations: 5 });
    expect(result.costUsd).toBeCloseTo(1.51);
  });

  it('numbers a new run on from the last one, so earlier logs are never overwritten', async () => {
    const dir = await loopDir();
    const agent = fakeAgent(dir, []);
    const { result } = await run(dir, agent, { maxIterations: 2, lastIteration: 7 });
    expect(agent.requests.map((request) => request.logFile)).toEqual([
      join(dir, 'logs', 'iteration-8-attempt-1.jsonl'),
      join(dir, 'logs', 'iteration-9-attempt-1.jsonl'),
    ]);
    expect(result).toMatchObject({ state: 'REACHED_LIMIT', iterations: 9, costUsd: 0.02 });
  });

  it('starts each iteration from the task list on disk, with the edits a person made', async () => {
    const dir = await loopDir();
    const file = join(dir, 'prd.json');
    const agent = fakeAgent(dir, []);
    let edited = false;
    const clockThatEdits: Clock = {
      now: () => clock.now(),
      // Between iterations (the pause), a person adds a story with a higher priority.
      sleep: async () => {
        if (edited) return;
        edited = true;
        const prd = JSON.parse(await readFile(file, 'utf8')) as { userStories: unknown[] };
        prd.userStories.unshift({
          id: 'STORY-000',
          title: 'urgent',
          acceptanceCriteria: [],
          priority: 0,
          passes: false,
        });
        await writeFile(file, JSON.stringify(prd, null, 2));
      },
    };
    const events: LoopEvent[] = [];
    await runLoop(loopOptions(dir, { maxIterations: 2 }), {
      agent,
      clock: clockThatEdits,
      signal: new AbortController().signal,
      reporters: [{ onEvent: (event) => void events.push(event) }],
    });
    expect(events.some((event) => event.type === 'task_list_restored')).toBe(false);
    expect(agent.requests[1]?.prompt).toContain('Work on **STORY-000: urgent**');
    const prd = JSON.parse(await readFile(file, 'utf8')) as { userStories: { id: string }[] };
    expect(prd.userStories.map((story) => story.id)).toEqual(['STORY-000', ...STORIES]);
  });

  it('ends with ERROR and its state written when the agent refuses a story it cannot run', async () => {
    const dir = await loopDir();
    const refusing: Step = () => {
      throw new RalphError('AGENT_CONFIG', 'MCP server "nope" is configured nowhere', {
        hint: 'claude mcp add nope …',
      });
    };
    const { result, events } = await run(dir, fakeAgent(dir, [refusing]));
    expect(result).toMatchObject({
      state: 'ERROR',
      exitCode: 2,
      reason: 'MCP server "nope" is configured nowhere',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run_finished',
      state: 'ERROR',
      hint: 'claude mcp add nope …',
    });
  });

  it('puts the warnings it was given into the event stream, right after run_started', async () => {
    const dir = await loopDir();
    const { events } = await run(dir, fakeAgent(dir, []), {
      maxIterations: 1,
      warnings: ['took over a stale lock left by pid 42'],
    });
    expect(events.slice(0, 2).map((event) => event.type)).toEqual(['run_started', 'warning']);
    expect(events[1]).toMatchObject({ message: 'took over a stale lock left by pid 42' });
  });

  it('pauses with exit 130 when the signal aborts during an iteration', async () => {
    const dir = await loopDir();
    const controller = new AbortController();
    const interrupted: Step = () => {
      controller.abort();
      return Promise.resolve({
        canceled: true,
        exitCode: undefined,
        exitSignal: 'SIGTERM',
        result: undefined,
      });
    };
    const { result, events } = await run(dir, fakeAgent(dir, [interrupted]), {}, controller.signal);
    expect(result).toMatchObject({ state: 'PAUSED', exitCode: 130, iterations: 1 });
    expect(finished(events)[0]?.outcome).toBe('canceled');
  });

  it('counts an error result as a failed iteration, not progress', async () => {
    const dir = await loopDir();
    const failing: Step = () =>
      Promise.resolve({
        exitCode: 1,
        result: {
          ...ok().result!,
          isError: true,
          apiErrorStatus: 529,
          resultText: 'API Error: 529 Overloaded',
        },
      });
    const { events } = await run(dir, fakeAgent(dir, [failing]), { maxIterations: 1 });
    expect(finished(events)[0]).toMatchObject({
      outcome: 'error',
      detail: 'agent reported an error (API 529): API Error: 529 Overloaded',
    });
  });

  it('refuses a task list whose stories wait on a story that does not exist, before any agent', async () => {
    const dir = await loopDir();
    const prd = {
      userStories: [
        { id: 'A-1', title: 'a', acceptanceCriteria: [], passes: false, dependsOn: ['A-9'] },
      ],
    };
    await writeFile(join(dir, 'prd.json'), JSON.stringify(prd));
    const agent = fakeAgent(dir, []);
    const error = await run(dir, agent).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).message).toContain('A-1 depends on "A-9"');
    expect(agent.requests).toEqual([]);
  });

  it('passes the story model and mcpServers to the agent', async () => {
    const dir = await loopDir();
    const prd = {
      userStories: [
        {
          id: 'S-1',
          title: 'a',
          acceptanceCriteria: [],
          passes: false,
          model: 'opus',
          mcpServers: [],
        },
      ],
    };
    await writeFile(join(dir, 'prd.json'), JSON.stringify(prd));
    const agent = fakeAgent(dir, []);
    await run(dir, agent, { maxIterations: 1, models: { model: 'haiku', profile: undefined } });
    expect(agent.requests[0]).toMatchObject({ model: 'opus', mcpServers: [] });
  });
});

describe('agent_started', () => {
  it('is emitted once per attempt, with the model the agent reports, however many init lines', async () => {
    const dir = await loopDir();
    const init = {
      type: 'init' as const,
      sessionId: 's-1',
      model: 'claude-sonnet-5',
      version: '2',
    };
    const agent = fakeAgent(dir, [
      (request) => {
        request.onEvent?.(init);
        request.onEvent?.({ ...init, sessionId: 's-1b' });
        return pass('STORY-001')(request, dir);
      },
    ]);
    const { events } = await run(dir, agent, { maxIterations: 1 });
    const started = events.filter((event) => event.type === 'agent_started');
    expect(started).toEqual([
      expect.objectContaining({
        iteration: 1,
        attempt: 1,
        sessionId: 's-1',
        model: 'claude-sonnet-5',
      }),
    ]);
  });
});
