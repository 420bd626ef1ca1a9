import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

/** Process-level tests run the built binary exactly as a user would: `node dist/cli/bin.js`. */
export const RALPH_BIN = resolve(import.meta.dirname, '../../dist/cli/bin.js');
export const FAKE_BIN_DIR = resolve(import.meta.dirname, '../fixtures/bin');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A clean environment: only what ralph needs, the fake `claude` first on PATH, a private HOME
 * (so the developer's ~/.config/ralph never leaks into a test) and no CLAUDECODE.
 */
export function testEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${FAKE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    NO_COLOR: '1',
    ...extra,
  };
}

export function runRalph(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [RALPH_BIN, ...args],
      { cwd, env, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** A temp folder holding a git repository (on `branch`) and a separate HOME. */
export async function tempRepo(
  branch = 'feature/csv-export',
): Promise<{ repo: string; home: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-e2e-')));
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  execFileSync('git', ['init', '-q', '-b', branch, repo]);
  execFileSync('mkdir', ['-p', home]);
  return { repo, home };
}
