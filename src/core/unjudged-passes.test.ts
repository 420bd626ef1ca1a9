import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeAgent, loopDir, run } from '../../test/fixtures/core/engine-fakes.js';
import type { LoopEvent } from './events.js';
import type { CheckRun, CheckRunner, VerificationSettings } from './loop-types.js';

/** A passing story in the task list that ralph never judged (attack 32: ralph was killed). */

const SETTINGS: VerificationSettings = {
  qualityChecks: { test: 'npm test' },
  timeoutMs: 5000,
  testIntegrity: false,
  testFiles: ['**/*.test.js'],
  pivotAfterRejections: 0,
  parkAfterRejections: 0,
};

function runner(exitCode: number): CheckRunner & { ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    shell(command): Promise<CheckRun> {
      ran.push(command);
      return Promise.resolve({ exitCode, timedOut: false, durationMs: 1, output: 'FAIL\n' });
    },
    git: () => Promise.resolve(undefined),
  };
}

async function markPassing(dir: string, id: string): Promise<void> {
  const file = join(dir, 'prd.json');
  const prd = JSON.parse(await readFile(file, 'utf8')) as {
    userStories: { id: string; passes: boolean }[];
  };
  for (const story of prd.userStories) if (story.id === id) story.passes = true;
  await writeFile(file, `${JSON.stringify(prd, null, 2)}\n`);
}

async function passes(dir: string): Promise<boolean[]> {
  const prd = JSON.parse(await readFile(join(dir, 'prd.json'), 'utf8')) as {
    userStories: { passes: boolean }[];
  };
  return prd.userStories.map((story) => story.passes);
}

const rejected = (events: LoopEvent[]) =>
  events.flatMap((event) =>
    event.type === 'story_rejected' ? [[event.story.id, event.reason]] : [],
  );

describe('a story marked passing that ralph never judged', () => {
  it('is verified when a run starts on a loop ralph ran before, and set back when its checks fail', async () => {
    const dir = await loopDir();
    await markPassing(dir, 'STORY-001');
    const checks = runner(1);
    const { events } = await run(
      dir,
      fakeAgent(dir, []),
      { maxIterations: 0, lastIteration: 1, verification: SETTINGS },
      undefined,
      { runCheck: checks },
    );
    expect(checks.ran).toEqual(['npm test']);
    expect(rejected(events)).toEqual([
      ['STORY-001', 'quality check test (`npm test`) failed (exit 1)'],
    ]);
    expect(await passes(dir)).toEqual([false, false, false]);
  });

  it('stays passing when its checks pass, with ralph’s evidence for the next run', async () => {
    const dir = await loopDir();
    await markPassing(dir, 'STORY-001');
    const checks = runner(0);
    const options = { maxIterations: 0, lastIteration: 1, verification: SETTINGS };
    await run(dir, fakeAgent(dir, []), options, undefined, { runCheck: checks });
    expect(await passes(dir)).toEqual([true, false, false]);
    // Verified once: the next run trusts it.
    await run(dir, fakeAgent(dir, []), options, undefined, { runCheck: checks });
    expect(checks.ran).toEqual(['npm test']);
  });

  it('goes back to false when there is no check to verify it with', async () => {
    const dir = await loopDir();
    await markPassing(dir, 'STORY-002');
    const { events } = await run(
      dir,
      fakeAgent(dir, []),
      { maxIterations: 0, lastIteration: 3, verification: { ...SETTINGS, qualityChecks: {} } },
      undefined,
      { runCheck: runner(0) },
    );
    expect(rejected(events)[0]?.[0]).toBe('STORY-002');
    expect(await passes(dir)).toEqual([false, false, false]);
  });

  it('keeps what the person marked in a task list ralph never ran on', async () => {
    const dir = await loopDir();
    await markPassing(dir, 'STORY-001');
    const checks = runner(1);
    await run(dir, fakeAgent(dir, []), { maxIterations: 0, verification: SETTINGS }, undefined, {
      runCheck: checks,
    });
    expect(checks.ran).toEqual([]);
    expect(await passes(dir)).toEqual([true, false, false]);
  });
});
