/**
 * The wall that does not read test code (issue 12): how many tests a check's runner says passed,
 * were skipped or left todo, read from its own output line by line as the check runs (so a long
 * `go test -v` is counted whole, not from the kept tail). ralph remembers the counts of the last
 * verified state per check; fewer passing or more skipped/todo is a weakened suite, however the
 * test files were changed. Output of a runner it does not know gives no counts: the file scan
 * (test-integrity.ts) is then all there is, and the evidence says so.
 */

export const TEST_RUNNERS = ['vitest', 'jest', 'node', 'pytest', 'go', 'cargo'] as const;
export type TestRunner = (typeof TEST_RUNNERS)[number];

export interface TestCounts {
  /** One of TEST_RUNNERS (a string: counts are read back from ralph's state file). */
  runner: string;
  passed: number;
  skipped: number;
  todo: number;
}

export interface TestCounter {
  line(text: string): void;
  /** undefined when no known runner's summary was seen. */
  result(): TestCounts | undefined;
}

// Terminal colours would split "3 passed" into pieces.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

const num = (text: string, pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? 0);

export function testCounter(): TestCounter {
  // Runners that print one summary: the last one counts (a test printing a fake summary early
  // is overwritten by the runner's own).
  let last: TestCounts | undefined;
  // Runners that print one summary per test binary or per test: summed.
  const go = { passed: 0, skipped: 0, seen: false };
  const cargo = { passed: 0, skipped: 0, seen: false };
  return {
    line(raw) {
      const text = raw.replace(ANSI, '').trim();
      let match: RegExpExecArray | null;
      if (/^Tests\s+\d+ (?:passed|failed|skipped|todo)/.test(text)) {
        last = {
          runner: 'vitest',
          passed: num(text, /(\d+) passed/),
          skipped: num(text, /(\d+) skipped/),
          todo: num(text, /(\d+) todo/),
        };
      } else if (/^Tests:\s+.*\d+ total/.test(text)) {
        last = {
          runner: 'jest',
          passed: num(text, /(\d+) passed/),
          skipped: num(text, /(\d+) skipped/),
          todo: num(text, /(\d+) todo/),
        };
      } else if ((match = /^(?:#|ℹ)\s+(pass|skipped|todo)\s+(\d+)$/.exec(text)) !== null) {
        // node --test: TAP (`# pass 2`) or spec (`ℹ pass 2`), one line per count.
        const node: TestCounts =
          last?.runner === 'node' ? last : { runner: 'node', passed: 0, skipped: 0, todo: 0 };
        const value = Number(match[2]);
        if (match[1] === 'pass') node.passed = value;
        else if (match[1] === 'skipped') node.skipped = value;
        else node.todo = value;
        last = node;
      } else if (
        /^=+ .*\d+ (?:passed|failed|skipped|xfailed|error).* in [\d.]+s.* =+$/.test(text)
      ) {
        last = {
          runner: 'pytest',
          passed: num(text, /(\d+) passed/),
          skipped:
            num(text, /(\d+) skipped/) + num(text, /(\d+) xfailed/) + num(text, /(\d+) deselected/),
          todo: 0,
        };
      } else if ((match = /^--- (PASS|SKIP): /.exec(text)) !== null) {
        go.seen = true;
        if (match[1] === 'PASS') go.passed += 1;
        else go.skipped += 1;
      } else if (/^test result: \w+\. \d+ passed; \d+ failed; \d+ ignored/.test(text)) {
        cargo.seen = true;
        cargo.passed += num(text, /(\d+) passed/);
        cargo.skipped += num(text, /(\d+) ignored/) + num(text, /(\d+) filtered out/);
      }
    },
    result() {
      if (last !== undefined) return { ...last };
      if (go.seen) return { runner: 'go', passed: go.passed, skipped: go.skipped, todo: 0 };
      if (cargo.seen) {
        return { runner: 'cargo', passed: cargo.passed, skipped: cargo.skipped, todo: 0 };
      }
      return undefined;
    },
  };
}

/** Counts of a whole output (tests, and checks whose runner gave no streaming counter). */
export function countTests(output: string): TestCounts | undefined {
  const counter = testCounter();
  for (const line of output.split('\n')) counter.line(line);
  return counter.result();
}

/** Why `now` is a weaker suite than `then`, or undefined when it is not. */
export function weakerSuite(then: TestCounts, now: TestCounts): string | undefined {
  if (then.runner !== now.runner) return undefined;
  const problems: string[] = [];
  if (now.passed < then.passed) problems.push(`${now.passed} passed (was ${then.passed})`);
  if (now.skipped > then.skipped) problems.push(`${now.skipped} skipped (was ${then.skipped})`);
  if (now.todo > then.todo) problems.push(`${now.todo} todo (was ${then.todo})`);
  return problems.length === 0 ? undefined : problems.join(', ');
}
