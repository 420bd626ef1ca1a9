import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Binds an agent's life to ralph's: on Linux the agent is started through `setpriv --pdeathsig
 * KILL`, so the kernel kills it the moment ralph dies — SIGKILL and OOM included, when no
 * handler of ralph's can run. Agents run in their own process group (so a stop reaches their
 * children) and would otherwise outlive ralph; with them would go ralph's in-process guard
 * service, and Claude Code runs tools unchecked when its HTTP hook cannot connect. setpriv
 * execs the agent, so the pid, exit code and signals are the agent's own.
 *
 * Left unwrapped: other systems, no setpriv on PATH, or an executable that cannot be found —
 * spawn then reports ENOENT as before instead of setpriv's exit 127.
 */

export interface SpawnTarget {
  file: string;
  args: readonly string[];
  /** Whether the agent dies with ralph. */
  bound: boolean;
}

let setprivPath: string | null | undefined;

export function bindToParentLife(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): SpawnTarget {
  const setpriv = findSetpriv();
  const executable = setpriv === undefined ? undefined : findExecutable(file, env.PATH);
  if (setpriv === undefined || executable === undefined) return { file, args, bound: false };
  return { file: setpriv, args: ['--pdeathsig', 'KILL', '--', executable, ...args], bound: true };
}

/** Whether agents started now would be bound (for the guard's fallback hook). */
export function canBindToParentLife(): boolean {
  return findSetpriv() !== undefined;
}

function findSetpriv(): string | undefined {
  if (setprivPath === undefined) {
    setprivPath =
      process.platform === 'linux'
        ? (['/usr/bin/setpriv', '/bin/setpriv', '/usr/sbin/setpriv'].find(isExecutable) ?? null)
        : null;
  }
  return setprivPath ?? undefined;
}

function findExecutable(file: string, path: string | undefined): string | undefined {
  if (file.includes('/')) return isExecutable(file) ? resolve(file) : undefined;
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, file);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
