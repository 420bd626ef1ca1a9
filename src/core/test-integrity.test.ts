import { describe, expect, it } from 'vitest';
import {
  findTestTampering,
  globMatcher,
  withoutComments,
  type TestDiff,
} from './test-integrity.js';

function diff(parts: Partial<TestDiff>): TestDiff {
  return { baseHadTests: true, deleted: [], hidden: [], movedOut: [], changed: [], ...parts };
}

/** One changed test file: `before` and `after` whole. */
function changed(file: string, before: string, after: string): TestDiff {
  return diff({ changed: [{ file, before, after }] });
}

const MUL = `const test = require('node:test');
const assert = require('node:assert');
test('multiplies', () => {
  assert.strictEqual(mul(2, 3), 6);
});
`;

describe('findTestTampering', () => {
  it('reports deleted tests and tests moved out of the test globs', () => {
    const problems = findTestTampering(
      diff({
        deleted: ['test/sum.test.js'],
        movedOut: [{ from: 'test/mul.test.js', to: 'notes/mul.txt' }],
      }),
    );
    expect(problems).toEqual([
      'deleted test file test/sum.test.js',
      'moved test file test/mul.test.js out of the tests (to notes/mul.txt)',
    ]);
  });

  it.each([
    ['test/a.test.js', "it.skip('adds', () => {"],
    ['src/a.spec.ts', "test.only('adds', () => {"],
    ['test/a.test.mjs', "test('adds', { skip: true }, () => {"],
    ['test/a.test.mjs', "test('adds', {'skip': true}, () => {"],
    ['test/a.test.mjs', "test('adds', { timeout: 5, todo: 'later' }, () => {"],
    ['test/a.test.js', "require('node:test').skip('adds', () => {"],
    ['test/a.test.js', "const { skip } = require('node:test');"],
    ['test/a.test.js', "import { todo } from 'node:test';"],
    ['test/a.test.js', "xit('adds', () => {"],
    ['test/a.test.ts', "it.todo('adds')"],
    ['tests/test_sum.py', '@pytest.mark.skip(reason="later")'],
    ['pkg/sum_test.go', '\tt.Skip("flaky")'],
    ['tests/sum.rs', '#[ignore]'],
  ])('reports a skip marker added to %s: %s', (file, line) => {
    const problems = findTestTampering(changed(file, '', `${line}\n`));
    expect(problems).toEqual([expect.stringContaining(`added a skip/only/todo marker in ${file}`)]);
  });

  it.each([
    ['if (false)', MUL.replace("test('multiplies'", "if (false) test('multiplies'")],
    ['process.exit', `process.exit(0);\n${MUL}`],
    ['a fake local assert', MUL.replace("require('node:assert')", "require('./helpers/assert')")],
    ['assert shadowed', `${MUL}assert.strictEqual = () => {};\n`],
    ['expect declared', 'const expect = () => ({ toBe() {} });\nexpect(mul(2, 3)).toBe(6);\n'],
  ])('reports %s in a test file', (_what, after) => {
    const problems = findTestTampering(changed('test/mul.test.js', MUL, after));
    // (Turning assert into expect also changes an existing assertion: reported on its own.)
    const added = problems.filter((each) => !each.startsWith('changed an existing assertion'));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatch(/^added (code that never runs|an early exit|a replaced assert)/);
  });

  it('does not report a marker that only moved, a new test, or the real assert module', () => {
    const moved = changed('test/a.test.js', "it.skip('x', f)\n", "  it.skip('x', f)\n");
    expect(findTestTampering(moved)).toEqual([]);
    const more = `${MUL}test('more', () => {\n  assert.strictEqual(mul(1, 1), 1);\n});\n`;
    expect(findTestTampering(changed('test/mul.test.js', MUL, more))).toEqual([]);
    const chai = 'const expect = chai.expect;\nexpect(1).to.equal(1);\n';
    expect(findTestTampering(changed('test/c.test.js', '', chai))).toEqual([]);
  });

  it('counts an assertion inside a comment as removed, inline or as a block around it', () => {
    const inline = MUL.replace(
      '  assert.strictEqual(mul(2, 3), 6);',
      '  /* assert.strictEqual(mul(2, 3), 6); */',
    );
    const block = MUL.replace('  assert', '  /*\n  assert').replace('6);\n', '6);\n  */\n');
    const trailing = MUL.replace('  assert', '  1; // assert');
    for (const after of [inline, block, trailing]) {
      expect(findTestTampering(changed('test/mul.test.js', MUL, after))).toEqual([
        'removed 1 assertion(s) from test/mul.test.js (1 before, 0 now)',
      ]);
    }
    const python = 'def test_x():\n    assert mul(2, 3) == 6\n';
    const docstring = 'def test_x():\n    """\n    assert mul(2, 3) == 6\n    """\n';
    expect(findTestTampering(changed('tests/test_x.py', python, docstring))).toHaveLength(1);
  });

  it('reports an existing assertion rewritten to expect something else (attack 01)', () => {
    const rewritten = changed(
      'tests/test_b.py',
      '    assert total == 3\n',
      '    assert total == 4\n',
    );
    expect(findTestTampering(rewritten)).toEqual([
      'changed an existing assertion in tests/test_b.py: assert total==3',
    ]);
  });
});

describe('withoutComments', () => {
  it('keeps strings that look like comments and the line count', () => {
    const text = "const url = 'http://x'; // note\n/* a\nb */ x();\n";
    expect(withoutComments(text, 'a.test.js')).toBe("const url = 'http://x'; \n\n x();\n");
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
