import { describe, expect, it } from 'vitest';
import { countTests, weakerSuite } from './test-counts.js';

describe('countTests', () => {
  it.each([
    [
      'vitest',
      ' Test Files  2 passed (2)\n      Tests  \u001b[32m5 passed\u001b[39m | 1 skipped | 2 todo (8)\n',
      { passed: 5, skipped: 1, todo: 2 },
    ],
    [
      'jest',
      'Tests:       1 skipped, 2 todo, 3 passed, 6 total\n',
      { passed: 3, skipped: 1, todo: 2 },
    ],
    [
      'node',
      '# tests 3\n# pass 2\n# fail 0\n# skipped 1\n# todo 0\n',
      { passed: 2, skipped: 1, todo: 0 },
    ],
    ['node', 'ℹ tests 2\nℹ pass 2\nℹ skipped 0\nℹ todo 1\n', { passed: 2, skipped: 0, todo: 1 }],
    [
      'pytest',
      '===== 3 passed, 1 skipped, 1 xfailed in 0.12s =====\n',
      { passed: 3, skipped: 2, todo: 0 },
    ],
    [
      'go',
      '--- PASS: TestA (0.00s)\n--- SKIP: TestB (0.00s)\n--- PASS: TestC (0.00s)\nok x 0.1s\n',
      { passed: 2, skipped: 1, todo: 0 },
    ],
    [
      'cargo',
      'test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out\n' +
        'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 1 filtered out\n',
      { passed: 5, skipped: 2, todo: 0 },
    ],
  ])('reads %s', (runner, output, counts) => {
    expect(countTests(output)).toEqual({ runner, ...counts });
  });

  it('takes the runner’s last summary over a fake one printed before it', () => {
    expect(countTests('# pass 100\n# skipped 0\nok 1\n# pass 1\n# skipped 1\n')).toMatchObject({
      passed: 1,
      skipped: 1,
    });
  });

  it('knows nothing of an unknown runner', () => {
    expect(countTests('all good\n')).toBeUndefined();
  });
});

describe('weakerSuite', () => {
  const then = { runner: 'node' as const, passed: 3, skipped: 0, todo: 0 };
  it('names fewer passed and more skipped or todo', () => {
    expect(weakerSuite(then, { ...then, passed: 2, skipped: 1 })).toBe(
      '2 passed (was 3), 1 skipped (was 0)',
    );
    expect(weakerSuite(then, { ...then, passed: 4 })).toBeUndefined();
    expect(weakerSuite(then, { ...then, runner: 'jest', passed: 0 })).toBeUndefined();
  });
});
