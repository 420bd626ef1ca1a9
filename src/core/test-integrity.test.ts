import { describe, expect, it } from 'vitest';
import { DEFAULT_TEST_FILE_GLOBS } from '../state/verify-config-schema.js';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckRunner } from './loop-types.js';
import {
  findTestTampering,
  globMatcher,
  readStartPoint,
  readTestDiff,
  type TestDiff,
} from './test-integrity.js';

const GLOBS = DEFAULT_TEST_FILE_GLOBS;

/** A -U0 patch of one file: `removed` lines then `added` lines. */
function patchOf(file: string, removed: string[], added: string[]): string {
  return [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    '@@ -1 +1 @@',
    ...removed.map((line) => `-${line}`),
    ...added.map((line) => `+${line}`),
  ].join('\n');
}

function diff(parts: Partial<TestDiff>): TestDiff {
  return { nameStatus: '', patch: '', untracked: [], ...parts };
}

describe('findTestTampering', () => {
  it('reports a deleted test file, not a deleted source file or a renamed test', () => {
    const nameStatus = 'D\ttest/sum.test.js\nD\tsrc/sum.js\nR100\ttest/a.test.js\ttest/b.test.js\n';
    expect(findTestTampering(diff({ nameStatus }), GLOBS)).toEqual([
      'deleted test file test/sum.test.js',
    ]);
  });

  it('reports a test renamed to a name no test runner picks up', () => {
    const nameStatus = 'R100\ttest/mul.test.js\tnotes/mul.fixture.txt\n';
    expect(findTestTampering(diff({ nameStatus }), GLOBS)).toEqual([
      'moved test file test/mul.test.js out of the tests (to notes/mul.fixture.txt)',
    ]);
  });

  it.each([
    ['test/a.test.js', "it.skip('adds', () => {"],
    ['src/a.spec.ts', "test.only('adds', () => {"],
    ['test/a.test.mjs', "test('adds', { skip: true }, () => {"],
    ['test/a.test.js', "xit('adds', () => {"],
    ['test/a.test.ts', "it.todo('adds')"],
    ['tests/test_sum.py', '@pytest.mark.skip(reason="later")'],
    ['pkg/sum_test.go', '\tt.Skip("flaky")'],
    ['tests/sum.rs', '#[ignore]'],
  ])('reports a skip marker added to %s: %s', (file, line) => {
    const problems = findTestTampering(diff({ patch: patchOf(file, [], [line]) }), GLOBS);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`added a skip/only/todo marker in ${file}`);
  });

  it('does not report a marker that only moved, or one in a file that is no test', () => {
    const moved = patchOf('test/a.test.js', ["it.skip('x', f)"], ["  it.skip('x', f)"]);
    const source = patchOf('src/feature-flags.js', [], ["describe.skip('x')"]);
    expect(findTestTampering(diff({ patch: `${moved}\n${source}` }), GLOBS)).toEqual([]);
  });

  it('reports removed and commented-out assertions, but not rewritten ones', () => {
    const removed = patchOf(
      'test/a.test.js',
      ['  expect(sum(1, 2)).toBe(3);', '  assert.equal(sum(2, 2), 4);'],
      ['  // expect(sum(1, 2)).toBe(3);'],
    );
    const rewritten = patchOf(
      'tests/test_b.py',
      ['    assert total == 3'],
      ['    assert total == 4'],
    );
    const rust = patchOf('tests/c.rs', ['    assert_eq!(sum(1, 2), 3);'], []);
    expect(
      findTestTampering(diff({ patch: [removed, rewritten, rust].join('\n') }), GLOBS),
    ).toEqual([
      'removed 2 assertion(s) from test/a.test.js (2 removed, 0 added)',
      'removed 1 assertion(s) from tests/c.rs (1 removed, 0 added)',
    ]);
  });

  it('reads new untracked test files as added lines', () => {
    const untracked = [{ file: 'test/new.test.js', text: "test.only('one', () => {});\n" }];
    expect(findTestTampering(diff({ untracked }), GLOBS)[0]).toContain('test/new.test.js');
  });
});

describe('globMatcher', () => {
  it('matches **, * and {a,b} against repository paths', () => {
    const match = globMatcher(['**/*.test.{js,ts}', 'spec/**', 'x?.py']);
    expect(match('a.test.js')).toBe(true);
    expect(match('deep/er/a.test.ts')).toBe(true);
    expect(match('a.test.py')).toBe(false);
    expect(match('spec/a/b.rb')).toBe(true);
    expect(match('xy.py')).toBe(true);
    expect(match('xyz.py')).toBe(false);
  });
});

describe('readStartPoint and readTestDiff', () => {
  /** git as a table: the answer to each command line, undefined (git failed) when absent. */
  function fakeGit(answers: Record<string, string>): CheckRunner & { asked: string[] } {
    const asked: string[] = [];
    return {
      asked,
      shell: () => Promise.reject(new Error('no shell here')),
      git(args) {
        asked.push(args.join(' '));
        return Promise.resolve(answers[args.slice(0, 2).join(' ')]);
      },
    };
  }

  it('starts from the stash commit of a dirty tree and blames only files untracked since', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ralph-integrity-'));
    await mkdir(join(root, 'test'));
    await writeFile(join(root, 'test/new.test.js'), "it.only('x', f);\n");
    await writeFile(join(root, 'test/mine.test.js'), "it.only('mine', f);\n");
    const before = fakeGit({
      'rev-parse --verify': 'head1\n',
      'stash create': 'stash1\n',
      'ls-files --others': 'test/mine.test.js\0',
    });
    const start = await readStartPoint(before, root);
    expect(start).toEqual({ commit: 'stash1', untracked: new Set(['test/mine.test.js']) });

    const after = fakeGit({
      'diff -M': '',
      'ls-files --others': 'test/mine.test.js\0test/new.test.js\0',
      'rev-parse --show-toplevel': `${root}\n`,
    });
    const diff = await readTestDiff(after, root, start!);
    expect(after.asked).toContain('diff -M --name-status --no-color stash1 --');
    expect(diff?.untracked.map((each) => each.file)).toEqual(['test/new.test.js']);
  });

  it('has no start point before the first commit', async () => {
    expect(await readStartPoint(fakeGit({}), '/nowhere')).toBeUndefined();
  });
});
