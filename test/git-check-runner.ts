import { execFile } from 'node:child_process';
import type { CheckRunner } from '../src/core/loop-types.js';

/** git without the machine's global or system config: what a test repository sees is its own. */
export const ISOLATED_GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** A real `git ARGS` in `cwd`, as the check runner answers: stdout, or undefined on failure. */
export function realGit(args: readonly string[], cwd: string): Promise<string | undefined> {
  return new Promise((done) => {
    execFile('git', [...args], { cwd, env: ISOLATED_GIT_ENV, maxBuffer: 1 << 24 }, (error, out) => {
      done(error === null ? out : undefined);
    });
  });
}

/**
 * A CheckRunner for the claim checks' unit tests: real git, no shell. `calls` records each git
 * command line, for tests about how many git processes a check costs.
 */
export function gitOnlyRunner(): CheckRunner & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    shell: () => Promise.reject(new Error('no shell here')),
    git: (args, cwd) => {
      calls.push([...args]);
      return realGit(args, cwd);
    },
  };
}
