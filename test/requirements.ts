import { spawnSync } from 'node:child_process';
import { describe, it } from 'vitest';

/**
 * Tests that need something outside the repository (a program such as tmux or chromium, the
 * corpus beside the checkout) declare it here. Where it is missing they skip, unless the run
 * requires it: then one failing test says what is missing, so CI cannot pass by skipping.
 */
export interface Requirement {
  /** What is needed, for the message: "tmux", "chromium at /usr/bin/chromium". */
  what: string;
  present: boolean;
  /** Whether a missing one fails the run instead of skipping. */
  required: boolean;
  /** Why it is required and how to get it. */
  hint: string;
}

/** Under CI (CI=true, as CI services and .ci/run set it) a missing tool fails. */
export const inCi = (): boolean => ['true', '1'].includes(process.env.CI ?? '');

/** A program on PATH, required under CI. */
export function tool(name: string, versionArgs: string[] = ['--version']): Requirement {
  return {
    what: name,
    present: spawnSync(name, versionArgs, { stdio: 'ignore' }).status === 0,
    required: inCi(),
    hint: `install ${name} (.ci/run does); CI=true makes a missing tool a failure, not a skip`,
  };
}

export function missingMessage(need: Requirement): string {
  return `${need.what} is missing: ${need.hint}`;
}

/** `describe` that runs when `need` is present, else skips, or fails when it is required. */
export function describeNeeding(need: Requirement, name: string, body: () => void): void {
  if (need.present) describe(name, body);
  else if (need.required) {
    describe(name, () => {
      it(`needs ${need.what}`, () => {
        throw new Error(missingMessage(need));
      });
    });
  } else describe.skip(name, body);
}

/** `it` for one test that needs `need`, inside a describe that otherwise does not. */
export function itNeeding(
  need: Requirement,
  name: string,
  body: () => Promise<void> | void,
  timeout?: number,
): void {
  if (need.present) it(name, body, timeout);
  else if (need.required) {
    it(`${name} (needs ${need.what})`, () => {
      throw new Error(missingMessage(need));
    });
  } else it.skip(name, body);
}
