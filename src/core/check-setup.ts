import { readBaseFiles } from './base-files.js';
import type { CheckRunner, StartPoint } from './loop-types.js';
import { findPythonSetupChanges, listPythonStartup } from './python-setup.js';
import { findRunnerConfigChanges, runnerConfigFiles } from './runner-config.js';

/**
 * How the checks run is part of what they check: an agent that rewrites the `test` script to
 * `exit 0`, or an `.npmrc` whose `script-shell` is `/bin/true`, makes every npm check pass
 * without touching a test. This compares, against the integrity base, the project's `.npmrc` and
 * the package.json scripts the checks run (the ones their commands name, `test`, and the pre/post
 * scripts npm runs around them) that existed there. A change or removal is tampering unless the
 * story allows test changes.
 */
export async function findCheckSetupChanges(
  runner: CheckRunner,
  cwd: string,
  start: StartPoint,
  commands: readonly string[],
  hadTests = true,
): Promise<string[]> {
  const python = await listPythonStartup(runner, cwd, start.commit);
  const base = await readBaseFiles(runner, cwd, start.commit, [
    '.npmrc',
    ...runnerConfigFiles(commands),
    ...python.files,
  ]);
  const problems: string[] = [];
  const npmrc = await base.difference('.npmrc');
  if (npmrc !== undefined && (npmrc.before ?? '') !== (npmrc.now ?? '')) {
    problems.push('changed .npmrc, which decides how npm runs the checks');
  }
  const packageJson = await base.difference('package.json');
  const before = scriptsOf(packageJson?.before);
  const now = scriptsOf(packageJson?.now);
  for (const name of scriptsRunBy(commands)) {
    // A script that was not there is set up, not weakened (a first story that creates the
    // project writes its test script). One that was there must stay as it was, and so must what
    // npm runs around it: a pre- or post- script added to it counts too.
    if (before[name] === undefined) continue;
    for (const each of [name, `pre${name}`, `post${name}`]) {
      if (before[each] !== now[each]) {
        problems.push(`changed the package.json script "${each}", which a check runs`);
      }
    }
  }
  problems.push(...(await findRunnerConfigChanges(base, cwd, start, hadTests, commands)));
  problems.push(...(await findPythonSetupChanges(base, cwd, python, commands, hadTests)));
  for (const file of base.tampered()) problems.push(tamperedObject(file));
  return problems;
}

/** Script names the commands run through a package manager (`test` always: npm test's). */
export function scriptsRunBy(commands: readonly string[]): string[] {
  const names = new Set<string>(['test']);
  const invocation = /\b(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?([\w:.-]+)/g;
  for (const command of commands) {
    for (const match of command.matchAll(invocation)) {
      const name = match[1];
      if (name !== undefined && !MANAGER_COMMANDS.has(name)) names.add(name);
    }
  }
  return [...names];
}

/** Package-manager commands that are not scripts (`npm ci`, `npm exec`, …). */
const MANAGER_COMMANDS = new Set([
  'ci',
  'install',
  'i',
  'exec',
  'x',
  'dlx',
  'run',
  'run-script',
  'add',
  'audit',
  'ls',
]);

function scriptsOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as { scripts?: unknown };
    const { scripts } = parsed;
    return typeof scripts === 'object' && scripts !== null
      ? (scripts as Record<string, unknown>)
      : {};
  } catch {
    // Not JSON now: npm cannot run any script of it either, so nothing runs differently.
    return {};
  }
}

/** Why a claim is rejected when the base copy of `file` in .git/objects is not what its id says. */
export function tamperedObject(file: string): string {
  return `rewrote the base copy of ${file} in .git/objects (its bytes are not what its id says)`;
}
