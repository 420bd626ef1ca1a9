import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BaseFiles } from './base-files.js';
import type { CheckRunner } from './loop-types.js';

/**
 * Python runs code of the project's before any test: pytest loads every `conftest.py` on the
 * way to a test (at any depth), the interpreter imports `sitecustomize.py`/`usercustomize.py`
 * and executes `*.pth` lines from site directories, and `python -m pytest` imports `pytest` from the working folder first (attack 08: a
 * `pytest.py` that prints "2 passed"). So these count as the test runner's configuration: a
 * change or removal is a test change, and so is an added one, except a new `conftest.py` that
 * holds only fixtures (new tests commonly bring one); one with hooks, plugins or an autouse
 * fixture counts.
 */

const STARTUP = /(?:^|\/)(?:conftest\.py|sitecustomize\.py|usercustomize\.py|[^/]*\.pth)$/;
const ACTIVE_CONFTEST = /\bdef\s+pytest_\w+|\bpytest_plugins\b|\bhookimpl\b|\bautouse\s*=\s*True/;

export interface PythonStartup {
  /** The startup files at the base and now (relative to cwd), for readBaseFiles. */
  files: string[];
  /** Every path the base held (relative to cwd). */
  baseHas: (path: string) => boolean;
}

/**
 * Lists them in the base (its whole tree) and now. Files git ignores (a virtualenv's .pth) are
 * left out, like the installed packages themselves: what is installed is outside what ralph
 * compares (see the README's limits).
 */
export async function listPythonStartup(
  runner: CheckRunner,
  cwd: string,
  commit: string,
): Promise<PythonStartup> {
  const plain = ['--no-replace-objects', '-c', 'core.quotePath=false'];
  const [tree, now] = await Promise.all([
    runner.git([...plain, 'ls-tree', '-r', '--name-only', '-z', commit], cwd),
    runner.git([...plain, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], cwd),
  ]);
  const base = new Set((tree ?? '').split('\0').filter((path) => path !== ''));
  const files = new Set([...base, ...(now ?? '').split('\0')].filter((path) => STARTUP.test(path)));
  const dirs = new Set([...base].flatMap((path) => parents(path)));
  return { files: [...files], baseHas: (path) => base.has(path) || dirs.has(path) };
}

/** The top-level modules the commands run with `python -m` (pytest for `python3 -m pytest`). */
export function modulesRunBy(commands: readonly string[]): string[] {
  const found = new Set<string>();
  const invocation = /\bpython(?:\d(?:\.\d+)?)?\s+(?:-(?!m)\w+(?:\s+(?!-)\w+)?\s+)*-m\s*([\w.]+)/g;
  for (const command of commands) {
    for (const match of command.matchAll(invocation)) {
      const name = match[1]?.split('.')[0];
      if (name !== undefined && name !== '') found.add(name);
    }
  }
  return [...found];
}

export async function findPythonSetupChanges(
  base: BaseFiles,
  cwd: string,
  startup: PythonStartup,
  commands: readonly string[],
  hadTests: boolean,
): Promise<string[]> {
  const problems: string[] = [];
  for (const file of startup.files) {
    const { before, now } = (await base.difference(file)) ?? {};
    if (before === now || (before === undefined && !hadTests)) continue;
    const name = file.split('/').at(-1) ?? file;
    if (before === undefined && name === 'conftest.py' && !ACTIVE_CONFTEST.test(now ?? ''))
      continue;
    const how = now === undefined ? 'deleted' : before === undefined ? 'added' : 'changed';
    problems.push(`${how} ${file}, which Python runs before the tests`);
  }
  for (const module of modulesRunBy(commands)) {
    for (const path of [`${module}.py`, module]) {
      const there = await lstat(join(cwd, path)).catch(() => undefined);
      if (there !== undefined && !startup.baseHas(path)) {
        problems.push(
          `added ${path}, which \`python -m ${module}\` would run instead of the installed ${module}`,
        );
      }
    }
  }
  return problems;
}

function parents(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('/'));
}
