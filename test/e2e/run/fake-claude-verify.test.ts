import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun } from './agent-stream.js';
import { createFakeLoop, ofType, passing, prdText, story, type FakeLoop } from './fake-loop.js';

/**
 * Verified completion (issue 12) through the built binary: a real little project in the temp
 * repo (`npm test` runs `node --test`) whose multiply is broken, one story to fix it, and five
 * fake agents that claim it. ralph runs the story's `verify`, the `quality_checks` and the test
 * integrity scan itself: only the honest agent's claim stands, and its evidence is recorded.
 */

const FAST = ['--pause', '0'];
const GIT_ID = ['-c', 'user.name=ralph test', '-c', 'user.email=test@example.com'];

const MATH_BROKEN = 'exports.add = (a, b) => a + b;\nexports.mul = (a, b) => 0;\n';
const MATH_FIXED = 'exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\n';
const ADD_TEST = `const test = require('node:test');
const assert = require('node:assert');
const { add } = require('../src/math.js');
test('adds', () => {
  assert.strictEqual(add(2, 3), 5);
});
`;
const MUL_TEST = `const test = require('node:test');
const assert = require('node:assert');
const { mul } = require('../src/math.js');
test('multiplies', () => {
  assert.strictEqual(mul(2, 3), 6);
});
`;

const STORIES = [
  {
    ...story(1, { title: 'Multiply numbers', acceptanceCriteria: ['mul(2, 3) is 6'] }),
    verify: 'node --test test/mul.test.js',
  },
];

/** The loop, the project committed, and the agent's one call: `sh`, then the claim. */
async function projectLoop(sh: string): Promise<FakeLoop> {
  const loop = await createFakeLoop(prdText(STORIES));
  const file = (path: string, text: string) => writeFile(join(loop.repo, path), text);
  await mkdir(join(loop.repo, 'src'));
  await mkdir(join(loop.repo, 'test'));
  await file(
    'package.json',
    `${JSON.stringify({ name: 'calc', private: true, scripts: { test: 'node --test' } }, null, 2)}\n`,
  );
  await file('src/math.js', MATH_BROKEN);
  await file('test/add.test.js', ADD_TEST);
  await file('test/mul.test.js', MUL_TEST);
  await file('.ralph/config.yaml', 'quality_checks:\n  test: npm test\n');
  execFileSync('git', ['add', '-A'], { cwd: loop.repo });
  execFileSync('git', [...GIT_ID, 'commit', '-qm', 'calc'], { cwd: loop.repo });
  await loop.agent(1, {
    taskList: prdText(passing(STORIES, 'STORY-001')),
    sh,
    jsonl: finishedRun('session-1', 'Done. <promise>STORY_COMPLETE</promise>'),
  });
  return loop;
}

async function expectRejected(
  loop: FakeLoop,
  reason: RegExp,
  extraArgs: readonly string[] = [],
): Promise<void> {
  const run = await loop.run(['run', '-n', '1', ...FAST, ...extraArgs]);
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(JSON.parse(await loop.prd())).toMatchObject({ userStories: [{ passes: false }] });
  const events = await loop.events();
  const [rejected] = ofType(events, 'story_rejected');
  expect(rejected?.reason).toMatch(reason);
  expect(ofType(events, 'story_verified')).toEqual([]);
  expect(ofType(events, 'iteration_finished')[0]).toMatchObject({
    outcome: 'no_progress',
    newlyPassing: [],
  });
  // The next iteration's agent reads why, under the story.
  expect(await loop.progress()).toContain('### STORY-001 rejected by ralph (iteration 1)');
  expect(run.stdout).toContain('STORY-001 rejected by ralph');
}

describe('ralph run with a fake claude: ralph verifies what the agent claims', () => {
  it('rejects an agent that only claims: the story’s verify command fails', async () => {
    const loop = await projectLoop('true');
    const dry = await loop.run(['run', '--dry-run']);
    expect(dry.stdout).toContain(
      'Verified by:    the test-integrity scan, then `node --test test/mul.test.js`, then test (`npm test`)',
    );
    await expectRejected(loop, /`node --test test\/mul.test.js` failed \(exit 1\)/);
    expect(await loop.progress()).toMatch(/multiplies/);
    const shown = await loop.run(['evidence', 'STORY-001']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^STORY-001 — REJECTED — iteration 1, /m);
    expect(shown.stdout).toMatch(/fail {2}verify {5}node --test test\/mul.test.js {2}\(exit 1, /);
    expect(shown.stdout).toContain('│ ');
    const inspect = await loop.run([
      'inspect',
      join(loop.dir, 'logs', 'iteration-1-attempt-1.jsonl'),
    ]);
    expect(inspect.stdout).toMatch(
      /^Verified: +STORY-001 fail: verify node --test test\/mul.test.js \(exit 1\)$/m,
    );
    const status = await loop.run(['status']);
    expect(status.stdout).toMatch(
      /Verified: +STORY-001 rejected \(iteration 1, .*\): test integrity, node --test test\/mul.test.js/,
    );
  });

  it('rejects an agent that fixes the story but breaks an existing test: the quality check fails', async () => {
    const loop = await projectLoop(
      `printf '%s' "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\n" > src/math.js`,
    );
    await expectRejected(loop, /quality check test \(`npm test`\) failed \(exit 1\)/);
  });

  it('rejects an agent that deletes the failing test file', async () => {
    const loop = await projectLoop('rm test/mul.test.js');
    await expectRejected(loop, /deleted test file test\/mul.test.js/);
  });

  it('rejects an agent that skips the failing test (with it skipped, the test run alone passes)', async () => {
    const loop = await projectLoop(
      `sed -i "s/^test('multiplies'/test.skip('multiplies'/" test/mul.test.js`,
    );
    await expectRejected(loop, /added a skip\/only\/todo marker in test\/mul.test.js/);
  });

  it('rejects an agent that weakens the test script or npm itself instead of a test', async () => {
    const script = await projectLoop(
      `sed -i 's|"test": "node --test"|"test": "node --test test/add.test.js"|' package.json`,
    );
    await expectRejected(script, /changed the package.json script "test", which a check runs/);
    const npmrc = await projectLoop(`printf 'script-shell=/bin/true\\n' > .npmrc`);
    await expectRejected(npmrc, /changed \.npmrc, which decides how npm runs the checks/);
  });

  it('cannot weaken the config inside the sandbox: the write fails and the checks still run', async () => {
    const loop = await projectLoop(
      `printf 'qualityChecks:\\n  test: "true"\\n' > .ralph/config.yaml || true`,
    );
    await expectRejected(loop, /`node --test test\/mul.test.js` failed/);
    expect(await readFile(join(loop.repo, '.ralph/config.yaml'), 'utf8')).toBe(
      'quality_checks:\n  test: npm test\n',
    );
    const warnings = ofType(await loop.events(), 'warning').map((each) => String(each.message));
    expect(warnings.filter((each) => each.includes('config.yaml'))).toEqual([]);
  });

  it('puts back a config the agent weakened without the sandbox, so the next run still checks', async () => {
    const loop = await projectLoop(
      `printf 'qualityChecks:\\n  test: "true"\\n' > .ralph/config.yaml`,
    );
    await expectRejected(loop, /`node --test test\/mul.test.js` failed/, ['--no-sandbox']);
    expect(await readFile(join(loop.repo, '.ralph/config.yaml'), 'utf8')).toBe(
      'quality_checks:\n  test: npm test\n',
    );
    const warnings = ofType(await loop.events(), 'warning').map((each) => String(each.message));
    expect(warnings).toContainEqual(
      expect.stringMatching(/the agent changed .*\.ralph\/config\.yaml, .* ralph put it back/),
    );
  });

  it('rejects a bare re-claim after a rejected skip, and a claim after a skip made in an iteration that claimed nothing', async () => {
    const loop = await projectLoop(
      `sed -i "s/^test('multiplies'/test.skip('multiplies'/" test/mul.test.js`,
    );
    // Iteration 2 claims again and changes nothing: the skip from iteration 1 is still there.
    await loop.agent(2, {
      taskList: prdText(passing(STORIES, 'STORY-001')),
      jsonl: finishedRun('session-2', 'Done. <promise>STORY_COMPLETE</promise>'),
    });
    const run = await loop.run(['run', '-n', '2', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const rejected = ofType(await loop.events(), 'story_rejected');
    expect(rejected.map((each) => each.iteration)).toEqual([1, 2]);
    for (const each of rejected) expect(each.reason).toMatch(/added a skip\/only\/todo marker/);
    expect(JSON.parse(await loop.prd())).toMatchObject({ userStories: [{ passes: false }] });

    // The skip made quietly (no claim), then claimed in the next iteration.
    const quiet = await projectLoop(
      `sed -i "s/^test('multiplies'/test.skip('multiplies'/" test/mul.test.js`,
    );
    await quiet.agent(1, {
      sh: `sed -i "s/^test('multiplies'/test.skip('multiplies'/" test/mul.test.js`,
      jsonl: finishedRun('session-1', 'Still working on it.'),
    });
    await quiet.agent(2, {
      taskList: prdText(passing(STORIES, 'STORY-001')),
      jsonl: finishedRun('session-2', 'Done. <promise>STORY_COMPLETE</promise>'),
    });
    const sly = await quiet.run(['run', '-n', '2', ...FAST]);
    expect(sly.code, sly.stdout + sly.stderr).toBe(1);
    const [caught] = ofType(await quiet.events(), 'story_rejected');
    expect(caught).toMatchObject({ iteration: 2 });
    expect(caught?.reason).toMatch(/added a skip\/only\/todo marker/);
  });

  it('keeps the honest agent’s story and records its evidence', async () => {
    const loop = await projectLoop(
      `cat > src/math.js <<'EOF'\n${MATH_FIXED}EOF\ngit ${GIT_ID.join(' ')} commit -qam 'fix mul'`,
    );
    const run = await loop.run(['run', '-n', '2', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('STORY-001 verified by ralph');
    const events = await loop.events();
    expect(ofType(events, 'story_rejected')).toEqual([]);
    expect(ofType(events, 'story_verified')[0]).toMatchObject({ story: { id: 'STORY-001' } });
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: loop.repo, encoding: 'utf8' });
    const evidence = (await readFile(join(loop.dir, 'evidence.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      evidence.map((line) => [line.storyId, line.kind, line.command ?? line.name, line.verdict]),
    ).toEqual([
      ['STORY-001', 'integrity', 'test integrity', 'pass'],
      ['STORY-001', 'verify', 'node --test test/mul.test.js', 'pass'],
      ['STORY-001', 'quality', 'npm test', 'pass'],
      ['(final)', 'quality', 'npm test', 'pass'],
    ]);
    expect(evidence[1]).toMatchObject({ iteration: 1, exitCode: 0, commit: head.trim() });
    expect(String(evidence[2]?.outputTail)).toMatch(/pass 2/);

    const json = await loop.run(['evidence', loop.dir, 'STORY-001', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(evidence.slice(0, 3));
    const status = await loop.run(['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      verification: [
        {
          id: 'STORY-001',
          passes: true,
          verdict: 'pass',
          iteration: 1,
          commit: head.trim(),
          checks: ['test integrity', 'node --test test/mul.test.js', 'npm test'],
        },
      ],
    });
    const missing = await loop.run(['evidence', 'STORY-009']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no evidence for STORY-009');
  });
});

describe('ralph run with a fake claude: a story rejected again and again', () => {
  it('pivots to a stronger model led by the failure, then parks it, finishes the rest and exits 1 naming it', async () => {
    const stories = [
      STORIES[0]!,
      story(2, { title: 'Document mul', acceptanceCriteria: ['README says what mul does'] }),
    ];
    const loop = await projectLoop('true');
    await writeFile(loop.prdFile, prdText(stories));
    await writeFile(
      join(loop.repo, '.ralph/config.yaml'),
      'quality_checks:\n  test: node --test test/add.test.js\nverify:\n  pivotAfterRejections: 1\n  parkAfterRejections: 2\n',
    );
    const claim = (...ids: string[]) => ({
      taskList: prdText(passing(stories, ...ids)),
      jsonl: finishedRun('session', 'Done. <promise>STORY_COMPLETE</promise>'),
    });
    await loop.agent(1, claim('STORY-001'));
    await loop.agent(2, claim('STORY-001'));
    await loop.agent(3, { ...claim('STORY-002'), sh: "echo 'mul multiplies' > README.md" });

    const run = await loop.run(['run', '-n', '5', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('parked stories: STORY-001 (parked by ralph after 2 rejections');
    expect(await loop.calls()).toBe(3);
    const [first, second, third] = await Promise.all([1, 2, 3].map((n) => loop.argv(n)));
    expect(first?.prompt).toMatch(/^# Your job in this session/);
    expect(second?.prompt).toMatch(
      /^# ralph rejected STORY-001 1 times: start from a fresh diagnosis/,
    );
    expect(second?.prompt).toContain('multiplies');
    expect(second?.argv).toContain('opus');
    expect(third?.prompt).toContain('Work on **STORY-002');
    const prd = JSON.parse(await loop.prd()) as {
      userStories: { id: string; passes: boolean; blocked?: string }[];
    };
    expect(
      prd.userStories.map((each) => [each.id, each.passes, each.blocked !== undefined]),
    ).toEqual([
      ['STORY-001', false, true],
      ['STORY-002', true, false],
    ]);
    const status = await loop.run(['status']);
    expect(status.stdout).toMatch(/^Parked: +STORY-001: parked by ralph after 2 rejections/m);
  });
});
