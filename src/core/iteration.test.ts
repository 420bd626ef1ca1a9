import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, AgentRunRequest, AgentRunResult } from '../agents/types.js';
import { readTaskListFile } from '../plan/read.js';
import { agentFailure, runIteration, type IterationSetup } from './iteration.js';

/** How an iteration is judged when ralph's timeouts ended the agent (issue 4, item 4). */

function result(overrides: Partial<AgentRunResult>): AgentRunResult {
  return {
    exitCode: 0,
    exitSignal: undefined,
    timedOut: false,
    canceled: false,
    spawnError: undefined,
    sessionId: 's',
    model: 'm',
    result: {
      subtype: 'success',
      isError: false,
      apiErrorStatus: undefined,
      resultText: 'done',
      sessionId: 's',
      costUsd: 0.01,
      numTurns: 1,
      usage: undefined,
      permissionDenials: [],
      durationMs: 1,
    },
    finalText: 'done',
    toolCalls: [],
    rateLimits: [],
    stderrTail: '',
    lineCount: 3,
    durationMs: 1,
    ...overrides,
  };
}

const killed = { exitCode: undefined, exitSignal: 'SIGTERM' };

describe('iteration timeouts', () => {
  it.each([
    {
      name: 'wall-clock timeout',
      agent: { ...killed, timedOut: true, result: undefined },
      outcome: 'timeout',
      detail: 'no result within 15 min: agent killed',
    },
    {
      name: 'idle timeout',
      agent: { ...killed, timedOut: true, idleTimedOut: true, result: undefined },
      outcome: 'timeout',
      detail: 'no output for 5 min: agent killed',
    },
    {
      name: 'a timeout wins over a limit message it printed',
      agent: { ...killed, timedOut: true, finalText: '5-hour limit reached ∙ resets 5am' },
      outcome: 'timeout',
      detail: 'no result within 15 min: agent killed',
    },
    {
      name: 'killed after a good result: judged by the result',
      agent: { ...killed, killedAfterResult: true },
      outcome: 'no_progress',
      detail: 'no story was marked passing (killed 30 s after its result: it did not exit)',
    },
    {
      name: 'killed after an error result: still an error',
      agent: {
        ...killed,
        killedAfterResult: true,
        result: { ...result({}).result!, isError: true, resultText: 'API Error: 500' },
      },
      outcome: 'error',
      detail: 'agent reported an error: API Error: 500',
    },
    {
      name: 'killed by a signal of its own',
      agent: { exitCode: undefined, exitSignal: 'SIGSEGV' },
      outcome: 'error',
      detail: 'agent ended with killed by SIGSEGV: done',
    },
  ])('$name', async ({ agent, outcome, detail }) => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-iteration-'));
    const file = join(dir, 'prd.json');
    await writeFile(
      file,
      JSON.stringify({ userStories: [{ id: 'S-1', title: 't', passes: false }] }),
    );
    const before = await readTaskListFile(file);
    const adapter: AgentAdapter = {
      id: 'claude',
      probe: () =>
        Promise.resolve({
          agent: 'claude',
          command: 'x',
          found: true,
          version: '1',
          problem: undefined,
        }),
      commandLine: () => ({ command: 'x', args: [] }),
      run: (request: AgentRunRequest) => {
        expect(request).toMatchObject({ idleTimeoutMs: 300_000, resultGraceMs: 30_000 });
        return Promise.resolve(result(agent));
      },
    };
    const setup: IterationSetup = {
      agent: adapter,
      cwd: dir,
      env: {},
      permission: { kind: 'skip' },
      settings: undefined,
      timeoutMs: 15 * 60_000,
      idleTimeoutMs: 5 * 60_000,
      resultGraceMs: 30_000,
      completionPatterns: [],
      signal: new AbortController().signal,
    };
    const report = await runIteration(setup, {
      before,
      story: before.taskList.stories[0]!,
      model: undefined,
      prompt: 'p',
      logFile: join(dir, 'log.jsonl'),
      onToolUse: () => undefined,
      onText: () => undefined,
    });
    expect([report.outcome, report.detail]).toEqual([outcome, detail]);
  });

  it('agentFailure ignores the kill of an agent that lingered after a good result', () => {
    expect(agentFailure(result({ ...killed, killedAfterResult: true }))).toBeUndefined();
    expect(agentFailure(result({ ...killed }))).toBe('agent ended with killed by SIGTERM: done');
  });
});
