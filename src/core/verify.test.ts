import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SAFETY } from '../safety/settings.js';
import { readEvidence } from '../state/evidence-log.js';
import {
  fakeAgent,
  finished,
  loopDir,
  pass,
  run,
  type Step,
} from '../../test/fixtures/core/engine-fakes.js';
import type { LoopEvent } from './events.js';
import type { CheckRun, CheckRunner, VerificationSettings } from './loop-types.js';
import { strongerModel } from './pivot.js';

/**
 * Verified completion (issue 12) in the engine, with a fake check runner: the agent's passes
 * are claims that ralph's own checks confirm or roll back.
 */

const SETTINGS: VerificationSettings = {
  qualityChecks: { test: 'npm test' },
  timeoutMs: 5000,
  testIntegrity: true,
  testFiles: ['**/*.test.js'],
  pivotAfterRejections: 0,
  parkAfterRejections: 0,
};

/** Answers each command with `exits[command]` (default 0) and records what ran. */
function fakeRunner(
  exits: Record<string, number | number[]> = {},
  git: Record<string, string> = {},
): CheckRunner & { ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    shell(command): Promise<CheckRun> {
      ran.push(command);
      const planned = exits[command] ?? 0;
      const exitCode = Array.isArray(planned) ? (planned.shift() ?? 0) : planned;
      return Promise.resolve({
        exitCode,
        timedOut: false,
        durationMs: 7,
        output: exitCode === 0 ? 'ok\n' : `FAIL ${command}\nexpected 6, got 0\n`,
      });
    },
    git(all, cwd) {
      // Past the options every integrity call starts with (--no-replace-objects, -c k=v).
      const args = [...all];
      while (args[0]?.startsWith('-') === true) args.splice(0, args[0] === '-c' ? 2 : 1);
      if (args.join(' ') === 'rev-parse --show-toplevel') return Promise.resolve(`${cwd}\n`);
      return Promise.resolve(
        git[args[0] === 'diff' ? `diff ${args[1] ?? ''} ${args[2] ?? ''}` : (args[0] ?? '')],
      );
    },
  };
}

/** Adds fields to one story of the loop's prd.json before the run. */
async function setStory(dir: string, id: string, fields: Record<string, unknown>): Promise<void> {
  const file = join(dir, 'prd.json');
  const prd = JSON.parse(await readFile(file, 'utf8')) as { userStories: { id: string }[] };
  prd.userStories = prd.userStories.map((each) => (each.id === id ? { ...each, ...fields } : each));
  await writeFile(file, `${JSON.stringify(prd, null, 2)}\n`);
}

async function passes(dir: string): Promise<Record<string, boolean>> {
  const prd = JSON.parse(await readFile(join(dir, 'prd.json'), 'utf8')) as {
    userStories: { id: string; passes: boolean }[];
  };
  return Object.fromEntries(prd.userStories.map((each) => [each.id, each.passes]));
}

const ofType = <T extends LoopEvent['type']>(events: LoopEvent[], type: T) =>
  events.filter((event): event is Extract<LoopEvent, { type: T }> => event.type === type);

describe('verified completion', () => {
  it('rolls back a claim whose quality check fails: story_rejected, no progress, evidence', async () => {
    const dir = await loopDir();
    const runner = fakeRunner({ 'npm test': 1 });
    const { result, events } = await run(
      dir,
      fakeAgent(dir, [pass('STORY-001')]),
      { maxIterations: 1, verification: SETTINGS },
      undefined,
      { runCheck: runner },
    );
    expect(result.state).toBe('REACHED_LIMIT');
    expect((await passes(dir))['STORY-001']).toBe(false);
    expect(ofType(events, 'story_rejected')[0]).toMatchObject({
      story: { id: 'STORY-001' },
      failed: { kind: 'quality', name: 'test', command: 'npm test', exitCode: 1 },
      reason: 'quality check test (`npm test`) failed (exit 1)',
    });
    expect(ofType(events, 'story_rejected')[0]?.outputTail).toContain('expected 6, got 0');
    const [iteration] = finished(events);
    expect(iteration).toMatchObject({ outcome: 'no_progress', newlyPassing: [] });
    expect(iteration?.breaker?.noProgress).toBe(1);
    expect(await readEvidence(dir)).toMatchObject([
      {
        storyId: 'STORY-001',
        iteration: 1,
        kind: 'quality',
        command: 'npm test',
        exitCode: 1,
        verdict: 'fail',
      },
    ]);
  });

  it("keeps a claim whose verify commands and quality checks pass, in that order; the run's end checks again", async () => {
    const dir = await loopDir();
    await setStory(dir, 'STORY-001', { verify: ['node --test a.test.js', 'npm run lint'] });
    const runner = fakeRunner();
    const steps: Step[] = [
      pass('STORY-001'),
      pass('STORY-002'),
      pass('STORY-003', '<promise>COMPLETE</promise>'),
    ];
    const agent = fakeAgent(dir, steps);
    const { result, events } = await run(dir, agent, { verification: SETTINGS }, undefined, {
      runCheck: runner,
    });
    expect(result.state).toBe('COMPLETE');
    expect(agent.requests[0]?.prompt).toContain(
      'ralph verifies the story itself when you mark it passing: it runs these commands and sets "passes" back to false if any fails (or if tests were deleted, skipped or lost assertions):\n- `node --test a.test.js`\n- `npm run lint`\n- `npm test`\n',
    );
    expect(runner.ran).toEqual([
      'node --test a.test.js',
      'npm run lint',
      'npm test',
      'npm test',
      'npm test',
      'npm test', // the final tree
    ]);
    expect(ofType(events, 'story_verified').map((event) => event.story.id)).toEqual([
      'STORY-001',
      'STORY-002',
      'STORY-003',
    ]);
    const evidence = await readEvidence(dir);
    expect(evidence.map((line) => [line.storyId, line.kind, line.verdict])).toEqual([
      ['STORY-001', 'verify', 'pass'],
      ['STORY-001', 'verify', 'pass'],
      ['STORY-001', 'quality', 'pass'],
      ['STORY-002', 'quality', 'pass'],
      ['STORY-003', 'quality', 'pass'],
      ['(final)', 'quality', 'pass'],
    ]);
  });

  it('runs the verify command the story had when the iteration started; the agent’s change is undone', async () => {
    const dir = await loopDir();
    await setStory(dir, 'STORY-001', { verify: 'node --test a.test.js' });
    const weaken: Step = async (request, loop) => {
      await setStory(loop, 'STORY-001', { verify: 'true', passes: true });
      return pass('STORY-001')(request, loop);
    };
    const runner = fakeRunner({ 'node --test a.test.js': 1 });
    const { events } = await run(
      dir,
      fakeAgent(dir, [weaken]),
      { maxIterations: 1, verification: SETTINGS },
      undefined,
      {
        runCheck: runner,
      },
    );
    expect(runner.ran).toEqual(['node --test a.test.js']);
    expect(ofType(events, 'task_list_restored')[0]?.problems).toEqual([
      'changed verify of STORY-001',
    ]);
    const prd = await readFile(join(dir, 'prd.json'), 'utf8');
    expect(prd).toContain('"verify": "node --test a.test.js"');
    expect((await passes(dir))['STORY-001']).toBe(false);
  });

  it('ends in ERROR, not COMPLETE, when the final quality check fails', async () => {
    const dir = await loopDir();
    const runner = fakeRunner({ 'npm test': [0, 0, 0, 1] });
    const steps = [pass('STORY-001'), pass('STORY-002'), pass('STORY-003')];
    const { result } = await run(
      dir,
      fakeAgent(dir, steps),
      { verification: SETTINGS },
      undefined,
      {
        runCheck: runner,
      },
    );
    expect(result).toMatchObject({
      state: 'ERROR',
      stopReason: 'verification_failed',
      exitCode: 1,
    });
  });

  it('rejects a claim with checks to run when no runner was given', async () => {
    const dir = await loopDir();
    const { events } = await run(dir, fakeAgent(dir, [pass('STORY-001')]), {
      maxIterations: 1,
      verification: SETTINGS,
    });
    expect(ofType(events, 'story_rejected')[0]?.reason).toBe(
      'quality check test (`npm test`) failed (could not run)',
    );
  });

  it('rejects a claim whose iteration deleted a test file, unless the story allows test changes', async () => {
    const dir = await loopDir();
    await setStory(dir, 'STORY-002', { allowTestChanges: true });
    const git = {
      'rev-parse': 'abc123\n',
      'ls-tree': `100644 blob ${'1'.repeat(40)}\ttest/sum.test.js\0`,
      'diff -M --name-status': '',
      'ls-files': '',
    };
    const runner = fakeRunner({}, git);
    const { events } = await run(
      dir,
      fakeAgent(dir, [pass('STORY-001'), pass('STORY-002')]),
      { maxIterations: 2, verification: SETTINGS },
      undefined,
      { runCheck: runner },
    );
    expect(ofType(events, 'story_rejected').map((event) => [event.story.id, event.reason])).toEqual(
      [['STORY-001', 'the iteration weakened the tests: deleted test file test/sum.test.js']],
    );
    expect(ofType(events, 'story_verified').map((event) => event.story.id)).toEqual(['STORY-002']);
    expect(await passes(dir)).toMatchObject({ 'STORY-001': false, 'STORY-002': true });
    // The integrity check does not run the quality checks of a story it already rejected.
    expect(runner.ran).toEqual(['npm test']);
  });
});

describe('test files swapped while the checks run (attack 17)', () => {
  it('rejects a claim when a test file differs after the checks from before them', async () => {
    const dir = await loopDir();
    await writeFile(join(dir, 'add.test.js'), 'assert(add(2, 3) === 5);\n');
    const runner = fakeRunner({}, { 'ls-files': 'add.test.js\0' });
    const shell = runner.shell.bind(runner);
    runner.shell = async (command, options) => {
      const result = await shell(command, options);
      await writeFile(join(dir, 'add.test.js'), '// nothing to see\n');
      return result;
    };
    const { events } = await run(
      dir,
      fakeAgent(dir, [pass('STORY-001')]),
      { maxIterations: 1, verification: SETTINGS },
      undefined,
      { runCheck: runner },
    );
    expect(ofType(events, 'story_rejected').map((event) => event.reason)).toEqual([
      'the iteration weakened the tests: test files changed while the checks ran: add.test.js',
    ]);
    expect(await passes(dir)).toMatchObject({ 'STORY-001': false });
  });
});

describe('verification interrupted', () => {
  it('leaves the claim unverified, not rejected, when Ctrl+C kills the checks', async () => {
    const dir = await loopDir();
    const controller = new AbortController();
    const runner: CheckRunner = {
      shell() {
        controller.abort();
        return Promise.resolve({ exitCode: undefined, timedOut: false, durationMs: 1, output: '' });
      },
      git: () => Promise.resolve(undefined),
    };
    const { result, events } = await run(
      dir,
      fakeAgent(dir, [pass('STORY-001')]),
      { verification: SETTINGS },
      controller.signal,
      { runCheck: runner },
    );
    expect(result.state).toBe('PAUSED');
    expect((await passes(dir))['STORY-001']).toBe(false);
    expect(ofType(events, 'story_rejected')).toEqual([]);
    expect(await readEvidence(dir)).toEqual([]);
  });
});

describe('the diagnostic pivot and parking', () => {
  /** Claims whichever story the prompt names. */
  const claimNamed: Step = async (request, dir) => {
    const id = /Work on \*\*(STORY-\d+)/.exec(request.prompt)?.[1] ?? '';
    return pass(id)(request, dir);
  };

  it('leads with the failure on a stronger model after 2 rejections, parks after 3, and ends naming it', async () => {
    const dir = await loopDir();
    await setStory(dir, 'STORY-001', { verify: 'check-1' });
    const runner = fakeRunner({ 'check-1': 1 });
    const agent = fakeAgent(dir, [], { fallback: claimNamed });
    const safety = {
      ...DEFAULT_SAFETY,
      breaker: { ...DEFAULT_SAFETY.breaker, noProgressThreshold: 10 },
    };
    const { result, events } = await run(
      dir,
      agent,
      {
        safety,
        verification: {
          ...SETTINGS,
          qualityChecks: {},
          pivotAfterRejections: 2,
          parkAfterRejections: 3,
        },
      },
      undefined,
      { runCheck: runner },
    );
    expect(
      agent.requests.map((request) => /Work on \*\*(STORY-\d+)/.exec(request.prompt)?.[1]),
    ).toEqual(['STORY-001', 'STORY-001', 'STORY-001', 'STORY-002', 'STORY-003']);
    expect(agent.requests.map((request) => request.model)).toEqual([
      undefined,
      undefined,
      'opus',
      undefined,
      undefined,
    ]);
    const pivoted = agent.requests[2]?.prompt ?? '';
    expect(
      pivoted.startsWith('# ralph rejected STORY-001 2 times: start from a fresh diagnosis'),
    ).toBe(true);
    expect(pivoted).toContain('`check-1` failed with exit 1');
    expect(pivoted).toContain('expected 6, got 0');
    expect(agent.requests[1]?.prompt.startsWith('Do one story.')).toBe(true);
    expect(ofType(events, 'story_rejected').map((event) => event.rejections)).toEqual([1, 2, 3]);
    expect(result).toMatchObject({ state: 'ERROR', stopReason: 'blocked', exitCode: 1 });
    expect(result.reason).toBe(
      'parked stories: STORY-001 (parked by ralph after 3 rejections; last: `check-1` failed (exit 1))',
    );
    const prd = JSON.parse(await readFile(join(dir, 'prd.json'), 'utf8')) as {
      userStories: { id: string; passes: boolean; blocked?: string }[];
    };
    expect(prd.userStories[0]).toMatchObject({
      passes: false,
      blocked: expect.stringContaining('3 rejections') as unknown,
    });
    expect(prd.userStories.slice(1).every((each) => each.passes)).toBe(true);
  });
});

describe('a run that ends with parked stories', () => {
  it('names them whatever ended it', async () => {
    const dir = await loopDir();
    await setStory(dir, 'STORY-001', { verify: 'check-1', blocked: 'parked by ralph earlier' });
    const { result } = await run(
      dir,
      fakeAgent(dir, []),
      { maxIterations: 1, verification: SETTINGS },
      undefined,
      {
        runCheck: fakeRunner(),
      },
    );
    expect(result).toMatchObject({ state: 'REACHED_LIMIT', exitCode: 1 });
    expect(result.reason).toBe('max iterations reached (1 in this run); parked: STORY-001');
  });
});

describe('strongerModel', () => {
  it('goes haiku → sonnet → opus, and to opus from anything it cannot place', () => {
    expect(strongerModel('haiku')).toBe('sonnet');
    expect(strongerModel('claude-sonnet-4-5')).toBe('opus');
    expect(strongerModel('opus')).toBe('opus');
    expect(strongerModel(undefined)).toBe('opus');
  });
});
