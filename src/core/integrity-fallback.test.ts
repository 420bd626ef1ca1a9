import { execFile, execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED_GIT_ENV, realGit } from '../../test/git-check-runner.js';
import { fakeAgent, loopDir, pass, run, type Step } from '../../test/fixtures/core/engine-fakes.js';
import { integrityStateFile } from '../state/integrity-store.js';
import { loopStateDir } from '../state/user-state.js';
import type { LoopEvent } from './events.js';
import type { CheckRunner, VerificationSettings } from './loop-types.js';

/** integrity.json deleted between runs (attack 06g): the base comes from what else ralph kept. */

const SETTINGS: VerificationSettings = {
  qualityChecks: { test: 'true' },
  timeoutMs: 5000,
  testIntegrity: true,
  testFiles: ['**/*.test.js'],
  pivotAfterRejections: 0,
  parkAfterRejections: 0,
};
const env = ISOLATED_GIT_ENV;
const TEST =
  'test("adds", () => {\n  assert.equal(add(2, 3), 5);\n  assert.equal(add(1, 1), 2);\n});\n';

const checks: CheckRunner = {
  shell: (command, { cwd }) =>
    new Promise((done) => {
      execFile('bash', ['-c', command], { cwd, env }, (error, stdout) => {
        done({ exitCode: error === null ? 0 : 1, timedOut: false, durationMs: 1, output: stdout });
      });
    }),
  git: realGit,
};

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd: dir, env });

async function project(): Promise<{ dir: string; stateDir: string }> {
  const dir = await loopDir();
  await mkdir(join(dir, 'test'));
  await writeFile(join(dir, 'test/add.test.js'), TEST);
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'one');
  return { dir, stateDir: await mkdtemp(join(tmpdir(), 'ralph-state-')) };
}

const idle: Step = () => Promise.resolve({ finalText: 'nothing done' });
const weaken = async (dir: string) => {
  await writeFile(join(dir, 'test/add.test.js'), TEST.replace(/ {2}assert.*\n/g, ''));
  git(dir, 'commit', '-qam', 'refactor tests');
};
const said = (events: LoopEvent[], type: 'warning' | 'story_rejected') =>
  events.flatMap((event) =>
    event.type === 'warning' && type === 'warning'
      ? [event.message]
      : event.type === 'story_rejected' && type === 'story_rejected'
        ? [event.reason]
        : [],
  );

describe('the integrity base when integrity.json is gone', () => {
  it('comes from the ref ralph keeps', async () => {
    const { dir, stateDir } = await project();
    const options = { maxIterations: 1, verification: SETTINGS, stateDir };
    await run(dir, fakeAgent(dir, [idle]), options, undefined, { runCheck: checks });
    await weaken(dir);
    await rm(integrityStateFile(stateDir, dir));
    const { events } = await run(dir, fakeAgent(dir, [pass('STORY-001')]), options, undefined, {
      runCheck: checks,
    });
    expect(said(events, 'warning').join('\n')).toMatch(/integrity record for this loop is missing/);
    expect(said(events, 'story_rejected')).toEqual([
      'the iteration weakened the tests: removed 2 assertion(s) from test/add.test.js (2 before, 0 now)',
    ]);
  });

  it('comes from the newest verified evidence, loudly, when the ref is gone too', async () => {
    const { dir, stateDir } = await project();
    const options = { maxIterations: 1, verification: SETTINGS, stateDir };
    await run(dir, fakeAgent(dir, [pass('STORY-001')]), options, undefined, { runCheck: checks });
    await weaken(dir);
    await rm(integrityStateFile(stateDir, dir));
    git(dir, 'update-ref', '-d', `refs/ralph/integrity/${basename(loopStateDir(stateDir, dir))}`);
    const { events } = await run(dir, fakeAgent(dir, [pass('STORY-002')]), options, undefined, {
      runCheck: checks,
    });
    expect(said(events, 'warning').join('\n')).toMatch(/^WARNING: .* newest verified check/m);
    expect(said(events, 'story_rejected')).toEqual([
      'the iteration weakened the tests: removed 2 assertion(s) from test/add.test.js (2 before, 0 now)',
    ]);
  });
});
