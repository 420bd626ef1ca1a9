import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRunRequest } from '../agents/types.js';
import { featureRepo, scriptedAgent } from '../../test/agent-session-kit.js';
import { debugProblem } from './debug.js';

const NOW = () => new Date('2026-11-23T20:00:00Z');

/** The state file the prompt names. */
function stateFile(request: AgentRunRequest): string {
  const named = /The debug state: (\S+) /.exec(request.prompt)?.[1];
  if (named === undefined) throw new Error('the prompt names no debug state');
  return resolve(request.cwd, named);
}

/** An agent that records evidence and ends in `status` (a JSON object, or raw block text). */
function investigates(status: object | string, seen: string[] = []) {
  return async (request: AgentRunRequest) => {
    const file = stateFile(request);
    const before = await readFile(file, 'utf8');
    seen.push(before);
    const block = typeof status === 'string' ? status : JSON.stringify(status);
    const after = before
      .replace(
        '## Evidence\n',
        '## Evidence\n\n- H1 (stale cache): cleared it, still fails: RULED_OUT\n',
      )
      .replace(/```ralph-debug-status\n[^`]*```/, `\`\`\`ralph-debug-status\n${block}\n\`\`\``);
    await writeFile(file, after);
  };
}

describe('debugProblem', () => {
  it("a new session: debug-state.md with the problem, the agent's ROOT_CAUSE_FOUND (exit 0), the session logged", async () => {
    const feature = await featureRepo();
    const seen: string[] = [];
    const agent = scriptedAgent(
      investigates(
        { state: 'ROOT_CAUSE_FOUND', summary: 'off by one', rootCause: 'src/a.ts:3 uses <=' },
        seen,
      ),
    );
    const result = await debugProblem({
      cwd: feature.repo,
      env: feature.env,
      problem: '  tests fail after the refactor ',
      profile: 'quality',
      agent: { adapter: agent },
      now: NOW,
    });
    expect(result).toMatchObject({
      state: 'ROOT_CAUSE_FOUND',
      exitCode: 0,
      session: 1,
      problem: undefined,
      stateFile: join(feature.dir, 'debug-state.md'),
      logFile: join(feature.dir, 'logs', 'debug-session-1.jsonl'),
    });
    expect(result.status?.rootCause).toBe('src/a.ts:3 uses <=');
    const [request] = agent.requests;
    expect(request?.model).toBe('opus');
    expect(request?.logFile).toBe(result.logFile);
    expect(request?.prompt).toContain('# Scientific debugging session');
    expect(request?.prompt).toContain(
      'Session 1. The debug state: .ralph/feature-widget/debug-state.md',
    );
    // What the agent found when it started: the problem, the sections, a pending status.
    expect(seen[0]).toContain('## Problem\n\ntests fail after the refactor\n');
    for (const section of ['## Symptoms', '## Hypotheses', '## Evidence', '## Checkpoints'])
      expect(seen[0]).toContain(section);
    expect(seen[0]).toContain('```ralph-debug-status\n{"state":"IN_PROGRESS"}\n```');
    const state = await readFile(result.stateFile, 'utf8');
    expect(state).toContain('RULED_OUT');
    expect(state).toContain(
      '- session 1, started 2026-11-23T20:00:00.000Z, model opus → ROOT_CAUSE_FOUND',
    );
  });

  it('CHECKPOINT_REACHED exits 10; --continue goes on in session 2 with the new information', async () => {
    const feature = await featureRepo();
    const options = { cwd: feature.repo, env: feature.env, now: NOW };
    const first = await debugProblem({
      ...options,
      problem: 'flaky login',
      agent: {
        adapter: scriptedAgent(investigates({ state: 'CHECKPOINT_REACHED', summary: 'need logs' })),
      },
    });
    expect(first).toMatchObject({ state: 'CHECKPOINT_REACHED', exitCode: 10, session: 1 });
    const seen: string[] = [];
    const agent = scriptedAgent(
      investigates({ state: 'DEBUG_COMPLETE', summary: 'fixed the race' }, seen),
    );
    const second = await debugProblem({
      ...options,
      continue: true,
      problem: 'it only fails on CI',
      agent: { adapter: agent },
    });
    expect(second).toMatchObject({ state: 'DEBUG_COMPLETE', exitCode: 0, session: 2 });
    expect(agent.requests[0]?.prompt).toContain('Session 2.');
    expect(agent.requests[0]?.prompt).toContain(
      'New information from the person: it only fails on CI',
    );
    // The first session's evidence is still there; the status was reset for this session.
    expect(seen[0]).toContain('RULED_OUT');
    expect(seen[0]).toContain('## Problem\n\nflaky login');
    expect(seen[0]).toContain('{"state":"IN_PROGRESS"}');
    const state = await readFile(second.stateFile, 'utf8');
    expect(state).toContain("model the agent's default → CHECKPOINT_REACHED");
    expect(state).toContain('new information: it only fails on CI → DEBUG_COMPLETE');
  });

  it.each([
    ['leaves the status pending', '{"state":"IN_PROGRESS"}', /without recording its state/],
    ['writes a garbled status', '{"state":"SOLVED"}', /no valid status: .*state/],
  ])('an agent that %s is ERROR (exit 1)', async (_name, block, problem) => {
    const feature = await featureRepo();
    const result = await debugProblem({
      cwd: feature.repo,
      env: feature.env,
      problem: 'crash',
      agent: { adapter: scriptedAgent(investigates(block)) },
    });
    expect(result).toMatchObject({ state: 'ERROR', exitCode: 1 });
    expect(result.problem).toMatch(problem);
    expect(await readFile(result.stateFile, 'utf8')).toContain('→ ERROR');
  });

  it('an agent that could not run is ERROR with the reason', async () => {
    const feature = await featureRepo();
    const agent = scriptedAgent(() => undefined, {
      spawnError: 'spawn claude ENOENT',
      exitCode: undefined,
    });
    const result = await debugProblem({
      cwd: feature.repo,
      env: feature.env,
      problem: 'x',
      agent: { adapter: agent },
    });
    expect(result).toMatchObject({
      state: 'ERROR',
      exitCode: 1,
      problem: 'the agent could not be started: spawn claude ENOENT',
    });
  });

  it('refuses contradictory or incomplete requests before any agent runs; --reset starts over', async () => {
    const feature = await featureRepo();
    const agent = scriptedAgent(investigates({ state: 'CHECKPOINT_REACHED', summary: 's' }));
    const base = { cwd: feature.repo, env: feature.env, agent: { adapter: agent } };
    await expect(debugProblem(base)).rejects.toThrow(/describe the problem/);
    await expect(
      debugProblem({ ...base, problem: 'x', continue: true, reset: true }),
    ).rejects.toThrow(/contradict/);
    await expect(debugProblem({ ...base, continue: true })).rejects.toThrow(
      /no session to continue/,
    );
    expect(agent.requests).toHaveLength(0);
    await debugProblem({ ...base, problem: 'first problem' });
    await expect(debugProblem({ ...base, problem: 'second problem' })).rejects.toThrow(
      /already recorded/,
    );
    const reset = await debugProblem({ ...base, problem: 'second problem', reset: true });
    expect(reset.session).toBe(1);
    const state = await readFile(reset.stateFile, 'utf8');
    expect(state).toContain('second problem');
    expect(state).not.toContain('first problem');
    expect(state).not.toContain('- session 2');
  });
});
