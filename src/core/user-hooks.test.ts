import { describe, expect, it } from 'vitest';
import { fakeAgent, loopDir, pass, run } from '../../test/fixtures/core/engine-fakes.js';
import type { HookPoint } from '../state/paths.js';
import type { UserHookRunner, UserHookVariables } from './loop-types.js';

/** The engine calls the person's hooks at the spec's points, with the spec's variables. */

interface Call {
  point: HookPoint;
  variables: UserHookVariables;
  urgent: boolean;
}

function recordingHooks(problems: Partial<Record<HookPoint, string>> = {}) {
  const calls: Call[] = [];
  const runner: UserHookRunner = {
    run: (point, variables, urgent) => {
      calls.push({ point, variables, urgent });
      return Promise.resolve(problems[point]);
    },
  };
  return { runner, calls };
}

describe('hook points', () => {
  it('calls pre_run, each iteration around the agent, then on_completion and post_run', async () => {
    const dir = await loopDir();
    const hooks = recordingHooks();
    const agent = fakeAgent(dir, [
      pass('STORY-001'),
      pass('STORY-002'),
      pass('STORY-003', '<promise>COMPLETE</promise>'),
    ]);
    const { result } = await run(dir, agent, {}, undefined, { hooks: hooks.runner });
    expect(result.state).toBe('COMPLETE');
    expect(hooks.calls.map((call) => call.point)).toEqual([
      'pre_run',
      'pre_iteration',
      'post_iteration',
      'pre_iteration',
      'post_iteration',
      'pre_iteration',
      'post_iteration',
      'on_completion',
      'post_run',
    ]);
    const [preRun, preIteration, postIteration] = hooks.calls;
    expect(preRun?.variables).toEqual({
      RALPH_HOOK_POINT: 'pre_run',
      RALPH_FEATURE_DIR: dir,
      RALPH_FEATURE_NAME: 'feature-x',
      RALPH_PRD_FILE: `${dir}/prd.json`,
    });
    expect(preIteration?.variables).toMatchObject({
      RALPH_ITERATION: '1',
      RALPH_STORY_ID: 'STORY-001',
    });
    expect(postIteration?.variables).toMatchObject({
      RALPH_ITERATION: '1',
      RALPH_ITERATION_OUTCOME: 'progress',
    });
    expect(hooks.calls.at(-1)?.variables).toMatchObject({
      RALPH_RUN_STATUS: 'complete',
      RALPH_RUN_STATE: 'COMPLETE',
      RALPH_ITERATION: '3',
    });
    expect(hooks.calls.every((call) => !call.urgent)).toBe(true);
  });

  it('calls on_error with the error type when the run stops short, and post_run after it', async () => {
    const dir = await loopDir();
    const hooks = recordingHooks();
    await run(dir, fakeAgent(dir, []), { maxIterations: 1 }, undefined, { hooks: hooks.runner });
    const end = hooks.calls.slice(-2);
    expect(end.map((call) => call.point)).toEqual(['on_error', 'post_run']);
    expect(end[0]?.variables).toMatchObject({
      RALPH_RUN_STATUS: 'error',
      RALPH_RUN_STATE: 'REACHED_LIMIT',
      RALPH_ERROR_TYPE: 'max_iterations',
    });
  });

  it('reports a failing hook as a warning and carries on', async () => {
    const dir = await loopDir();
    const hooks = recordingHooks({ pre_iteration: 'exit code 3: no VPN' });
    const agent = fakeAgent(dir, [pass('STORY-001'), pass('STORY-002'), pass('STORY-003')]);
    const { result, events } = await run(dir, agent, {}, undefined, { hooks: hooks.runner });
    expect(result.state).toBe('COMPLETE');
    const warnings = events.filter((event) => event.type === 'warning');
    expect(warnings.map((event) => event.message)).toEqual([
      'hook pre_iteration: exit code 3: no VPN',
      'hook pre_iteration: exit code 3: no VPN',
      'hook pre_iteration: exit code 3: no VPN',
    ]);
    // Emitted before run_finished closes the reporters, so events.jsonl keeps them.
    expect(events.at(-1)?.type).toBe('run_finished');
  });

  it('on Ctrl+C skips post_iteration and gives post_run (user_exit) only a moment', async () => {
    const dir = await loopDir();
    const hooks = recordingHooks();
    const controller = new AbortController();
    const agent = fakeAgent(dir, [
      () => {
        controller.abort();
        return Promise.resolve({ canceled: true, exitSignal: 'SIGTERM', exitCode: undefined });
      },
    ]);
    const { result } = await run(dir, agent, {}, controller.signal, { hooks: hooks.runner });
    expect(result.state).toBe('PAUSED');
    expect(hooks.calls.map((call) => [call.point, call.urgent])).toEqual([
      ['pre_run', false],
      ['pre_iteration', false],
      ['post_run', true],
    ]);
    expect(hooks.calls.at(-1)?.variables).toMatchObject({ RALPH_RUN_STATUS: 'user_exit' });
  });
});
