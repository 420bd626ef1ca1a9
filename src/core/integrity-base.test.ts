import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeAgent, loopDir, pass, run } from '../../test/fixtures/core/engine-fakes.js';
import { readEvidence } from '../state/evidence-log.js';
import { readIntegrityState } from '../state/integrity-store.js';
import type { LoopEvent } from './events.js';
import type { CheckRun, CheckRunner, VerificationSettings } from './loop-types.js';
import type { TestCounts } from './test-counts.js';

/**
 * The integrity base and the test counts across runs: kept in ralph's user state dir, they are
 * what the next run's claims are measured against, not the tree as the last run left it.
 */

const SETTINGS: VerificationSettings = {
  qualityChecks: { test: 'npm test' },
  timeoutMs: 5000,
  testIntegrity: true,
  testFiles: ['**/*.test.js'],
  pivotAfterRejections: 0,
  parkAfterRejections: 0,
};

const HEAD = 'a'.repeat(40);

/** `npm test` passes, reporting the next of `counts`; git is a repository with no tests. */
function runner(counts: TestCounts[]): CheckRunner & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    shell(): Promise<CheckRun> {
      const tests = counts.shift();
      return Promise.resolve({
        exitCode: 0,
        timedOut: false,
        durationMs: 1,
        output: 'ok\n',
        tests,
      });
    },
    git(all, cwd) {
      const args = all.filter((arg) => !arg.startsWith('--no-replace') && !arg.includes('='));
      const command = args.filter((arg) => arg !== '-c').join(' ');
      asked.push(command);
      if (command.startsWith('rev-parse --verify')) return Promise.resolve(`${HEAD}\n`);
      if (command.startsWith('rev-parse --show-toplevel')) return Promise.resolve(`${cwd}\n`);
      if (command.startsWith('stash create')) return Promise.resolve('');
      if (command.startsWith('cat-file -e')) return Promise.resolve('');
      if (
        command.startsWith('ls-') ||
        command.startsWith('diff') ||
        command.startsWith('update-ref')
      )
        return Promise.resolve('');
      return Promise.resolve(undefined);
    },
  };
}

const node = (passed: number, skipped = 0): TestCounts => ({
  runner: 'node',
  passed,
  skipped,
  todo: 0,
});

async function allowTestChanges(dir: string, id: string): Promise<void> {
  const file = join(dir, 'prd.json');
  const prd = JSON.parse(await readFile(file, 'utf8')) as { userStories: { id: string }[] };
  prd.userStories = prd.userStories.map((each) =>
    each.id === id ? { ...each, allowTestChanges: true } : each,
  );
  await writeFile(file, `${JSON.stringify(prd, null, 2)}\n`);
}

const rejections = (events: LoopEvent[]) =>
  events.flatMap((event) => (event.type === 'story_rejected' ? [event.reason] : []));

describe('the integrity base across runs', () => {
  it('rejects a later run’s claim whose checks pass fewer tests or skip more, unless allowed', async () => {
    const dir = await loopDir();
    const stateDir = await mkdtemp(join(tmpdir(), 'ralph-state-'));
    const options = { maxIterations: 1, verification: SETTINGS, stateDir };
    const first = await run(dir, fakeAgent(dir, [pass('STORY-001')]), options, undefined, {
      runCheck: runner([node(3)]),
    });
    expect(rejections(first.events)).toEqual([]);
    // The evidence carries the counts; a check whose output ralph does not know says so.
    const counted = (await readEvidence(dir)).find((each) => each.kind === 'quality');
    expect(counted).toMatchObject({ kind: 'quality', tests: node(3) });
    expect(counted?.note).toBeUndefined();
    expect((await readIntegrityState(stateDir, dir)).tests).toEqual({
      'quality:npm test': node(3),
    });

    // A new run (a new engine, nothing in memory): the counts come from the state dir.
    const second = await run(dir, fakeAgent(dir, [pass('STORY-002')]), options, undefined, {
      runCheck: runner([node(2, 1)]),
    });
    expect(rejections(second.events)).toEqual([
      'the iteration weakened the tests: `npm test` reports 2 passed (was 3), 1 skipped (was 0)',
    ]);

    // A runner whose summary went missing (a test that silences stdout) counts as weakened too.
    const silenced = await run(dir, fakeAgent(dir, [pass('STORY-002')]), options, undefined, {
      runCheck: runner([]),
    });
    expect(rejections(silenced.events)).toEqual([
      'the iteration weakened the tests: `npm test` reports no test summary now (node reported 3 passed)',
    ]);

    await allowTestChanges(dir, 'STORY-002');
    const allowed = await run(dir, fakeAgent(dir, [pass('STORY-002')]), options, undefined, {
      runCheck: runner([node(2, 1)]),
    });
    expect(rejections(allowed.events)).toEqual([]);
    // The allowed state is the new floor.
    expect((await readIntegrityState(stateDir, dir)).tests['quality:npm test']).toEqual(node(2, 1));
  });

  it('measures a later run from the saved base, not from the tree as it starts', async () => {
    const dir = await loopDir();
    const stateDir = await mkdtemp(join(tmpdir(), 'ralph-state-'));
    const options = { maxIterations: 1, verification: SETTINGS, stateDir };
    await run(dir, fakeAgent(dir, [pass('STORY-001')]), options, undefined, {
      runCheck: runner([]),
    });
    const uncounted = (await readEvidence(dir)).find((each) => each.kind === 'quality');
    expect(uncounted?.note).toMatch(/^no test counts: ralph does not know this output/);
    expect((await readIntegrityState(stateDir, dir)).base).toMatchObject({ commit: HEAD });

    const git = runner([]);
    await run(dir, fakeAgent(dir, [pass('STORY-002')]), options, undefined, { runCheck: git });
    const firstRead = git.asked.findIndex((each) => each.startsWith('cat-file -e'));
    const firstStash = git.asked.findIndex((each) => each.startsWith('stash create'));
    expect(firstRead).toBeGreaterThanOrEqual(0);
    // The base was loaded before the claim; a new one is read only once the claim is verified.
    expect(firstStash).toBeGreaterThan(git.asked.findIndex((each) => each.startsWith('ls-tree')));
    expect(git.asked.some((each) => each.startsWith('update-ref refs/ralph/integrity/'))).toBe(
      true,
    );
  });
});
