import { mkdirSync, readdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The cap on the number of processes in a sandbox (fork bombs). RLIMIT_NPROC does not bind root
 * and counts every process of the user, so the cap is a pids cgroup: a folder of its own under a
 * writable cgroup hierarchy (cgroup v1's `pids` controller, or cgroup v2 where `pids` is enabled),
 * its `pids.max` set, and each sandboxed command moved into it before bubblewrap starts (the
 * command line `shellFor` builds). Where no hierarchy is writable (an unprivileged user without a
 * delegated cgroup) there is no cap, and `create` says so by returning undefined.
 */

export interface PidsCgroup {
  /** The file a process writes its pid into to join the cgroup. */
  procsFile: string;
  /** Removes the cgroup (it must be empty: every process in it ended). */
  dispose(): void;
}

/** Where a pids cgroup may be made, in order: cgroup v1's controller, then the v2 roots. */
export const CGROUP_ROOTS = [
  '/sys/fs/cgroup/pids',
  '/sys/fs/cgroup',
  '/sys/fs/cgroup/unified',
] as const;

/** The prefix of every sandbox cgroup's and temp folder's name; `<prefix><owner pid>-…`. */
export const SANDBOX_PREFIX = 'ralph-sandbox-';

export function createPidsCgroup(
  name: string,
  max: number,
  roots: readonly string[] = CGROUP_ROOTS,
): PidsCgroup | undefined {
  for (const root of roots) {
    const dir = join(root, name);
    try {
      mkdirSync(dir);
    } catch {
      continue; // not a cgroup hierarchy, or not ours to write
    }
    try {
      // The kernel makes both files in a new cgroup; a plain folder (a writable tmpfs where the
      // hierarchy is not mounted) has neither, and nothing is written into it.
      statSync(join(dir, 'cgroup.procs'));
      statSync(join(dir, 'pids.max'));
      writeFileSync(join(dir, 'pids.max'), `${max}\n`);
      return {
        procsFile: join(dir, 'cgroup.procs'),
        dispose: () => {
          removeQuietly(dir);
        },
      };
    } catch {
      removeQuietly(dir); // a hierarchy without the pids controller
    }
  }
  return undefined;
}

/**
 * Removes the sandbox cgroups whose owner (the pid in their name) is gone: a run that was
 * SIGKILLed could not remove its own. One still holding processes stays (rmdir refuses it).
 */
export function sweepPidsCgroups(
  isAlive: (pid: number) => boolean,
  roots: readonly string[] = CGROUP_ROOTS,
): void {
  for (const root of roots) {
    for (const dir of deadOwnerEntries(root, isAlive)) removeQuietly(dir);
  }
}

/** The entries `<prefix><pid>-…` of `dir` whose pid is not alive. */
export function deadOwnerEntries(dir: string, isAlive: (pid: number) => boolean): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const match = new RegExp(`^${SANDBOX_PREFIX}(\\d+)-`).exec(name);
    return match === null || isAlive(Number(match[1])) ? [] : [join(dir, name)];
  });
}

/**
 * `file args` started by a shell that first moves itself into the cgroup, then becomes the
 * command (exec: same pid, so signals and exit codes are the command's own).
 */
export function joinCgroupFirst(
  procsFile: string,
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  return {
    file: '/bin/sh',
    args: ['-c', 'echo $$ > "$0" && exec "$@"', procsFile, file, ...args],
  };
}

/** Whether a process with this pid exists (signal 0; EPERM means it exists, as another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function removeQuietly(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // busy (processes left in it) or gone
  }
}
