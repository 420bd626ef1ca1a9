import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { finishedRun } from './agent-stream.js';
import { createFakeLoop, ofType, passing, prdText, story, type FakeLoop } from './fake-loop.js';

/**
 * The little project the verified-completion tests work on: `npm test` runs `node --test` over
 * an add test and a mul test, and mul is broken. Story 1 fixes mul, story 2 documents it.
 */

export const FAST = ['--pause', '0'];
export const GIT_ID = ['-c', 'user.name=ralph test', '-c', 'user.email=test@example.com'];

export const MATH_BROKEN = 'exports.add = (a, b) => a + b;\nexports.mul = (a, b) => 0;\n';
export const MATH_FIXED = 'exports.add = (a, b) => a + b;\nexports.mul = (a, b) => a * b;\n';
const testOf = (
  name: string,
  fn: string,
  call: string,
  result: number,
) => `const test = require('node:test');
const assert = require('node:assert');
const { ${fn} } = require('../src/math.js');
test('${name}', () => {
  assert.strictEqual(${call}, ${result});
});
`;
/** Two tests: node --test counts a test file with none left as one passing test. */
export const ADD_TEST = `${testOf('adds', 'add', 'add(2, 3)', 5)}test('adds zero', () => {
  assert.strictEqual(add(2, 0), 2);
});
`;
export const MUL_TEST = testOf('multiplies', 'mul', 'mul(2, 3)', 6);

export const STORIES = [
  {
    ...story(1, { title: 'Multiply numbers', acceptanceCriteria: ['mul(2, 3) is 6'] }),
    verify: 'node --test test/mul.test.js',
  },
  story(2, { title: 'Document mul', acceptanceCriteria: ['README says what mul does'] }),
];

export const CLAIM = (call: string) =>
  finishedRun(`session-${call}`, 'Done. <promise>STORY_COMPLETE</promise>');

/** The loop and the project, committed; no agent call planned yet. */
export async function verifyProject(stories = STORIES): Promise<FakeLoop> {
  const loop = await createFakeLoop(prdText(stories));
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
  return loop;
}

/** An agent call that runs `sh` and claims the stories `ids`. */
export async function claim(
  loop: FakeLoop,
  call: number,
  sh: string,
  ids: string[],
  stories = STORIES,
): Promise<void> {
  await loop.agent(call, {
    taskList: prdText(passing(stories, ...ids)),
    sh,
    jsonl: CLAIM(String(call)),
  });
}

/** The shell that fixes mul honestly and commits it. */
export const HONEST_FIX = `cat > src/math.js <<'EOF'\n${MATH_FIXED}EOF\ngit ${GIT_ID.join(' ')} commit -qam 'fix mul'`;

/** The story_rejected reasons of the loop's runs so far, by iteration. */
export async function rejections(loop: FakeLoop): Promise<[unknown, string][]> {
  return ofType(await loop.events(), 'story_rejected').map((each) => [
    each.iteration,
    String(each.reason),
  ]);
}

export async function passes(loop: FakeLoop): Promise<boolean[]> {
  const prd = JSON.parse(await loop.prd()) as { userStories: { passes: boolean }[] };
  return prd.userStories.map((each) => each.passes);
}

export function expectExit(run: { code: number; stdout: string; stderr: string }, code: number) {
  expect(run.code, run.stdout + run.stderr).toBe(code);
}
