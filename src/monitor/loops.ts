import { readdir, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { RunState } from '../core/events.js';
import { readLock, type LivenessProbe } from '../state/lock.js';
import { findTaskListFile, loopPaths, loopSearchRoots } from '../state/paths.js';
import { readStatus } from '../state/status.js';

/**
 * Which loop directories a repository holds and what state each is in: `ralph list`, the web
 * dashboard's loop picker, and the checks of attach and stop.
 *
 * Found: every direct subfolder of the search roots (paths.ts: `.ralph/` and
 * `.claude/data/ralph-loops/`) that holds a task list, status.json or events.jsonl, plus every
 * DIR named explicitly. State: RUNNING when a live process holds the loop's lock (whatever
 * status.json says: a run that just started may not have written it yet); otherwise ORPHANED
 * when status.json still says RUNNING (its process died without recording an end); otherwise
 * the state status.json recorded, or NEW when no run ever wrote one.
 */

export type ListedState = RunState | 'ORPHANED' | 'NEW';

export interface LoopListing {
  /** The directory as shown and as the web dashboard names it: relative to the repo root. */
  id: string;
  dir: string;
  state: ListedState;
  /** The live run's pid (RUNNING), or the dead one's (ORPHANED). */
  pid?: number;
  /** Set when the run holding the lock is on another machine (its pid means nothing here). */
  host?: string;
  /** ORPHANED, and its pid now names another process (reused after the run died). */
  pidReused?: true;
  feature?: string;
  iteration?: number;
  maxIterations?: number;
  storiesPassing?: number;
  storiesTotal?: number;
  costUsd?: number;
  updatedAt?: string;
  exitReason?: string;
  /** Set when status.json could not be read: the state is then a best guess. */
  problem?: string;
}

export async function findLoopDirs(
  repoRoot: string | undefined,
  named: readonly string[],
): Promise<string[]> {
  const found: string[] = [];
  if (repoRoot !== undefined) {
    for (const root of loopSearchRoots(repoRoot)) {
      const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
        const dir = join(root, entry.name);
        if (await isLoopDir(dir)) found.push(dir);
      }
    }
  }
  for (const dir of named) {
    const absolute = resolve(dir);
    if (!found.includes(absolute)) found.push(absolute);
  }
  return found;
}

export async function isLoopDir(dir: string): Promise<boolean> {
  const paths = loopPaths(dir);
  if ((await findTaskListFile(dir)) !== undefined) return true;
  for (const file of [paths.status, paths.events]) {
    if ((await stat(file).catch(() => undefined))?.isFile() === true) return true;
  }
  return false;
}

export async function describeLoop(
  dir: string,
  options: { repoRoot?: string | undefined } & LivenessProbe = {},
): Promise<LoopListing> {
  const lock = await readLock(dir, options);
  let problem: string | undefined;
  const status = await readStatus(dir).catch((error: unknown) => {
    problem = error instanceof Error ? error.message : String(error);
    return undefined;
  });
  const alivePid = lock?.alive === true ? lock.holder?.pid : undefined;
  const holderHost = lock?.holder?.hostname;
  const remote = holderHost !== undefined && holderHost !== (options.hostname ?? hostname());
  let state: ListedState;
  if (lock?.alive === true) state = 'RUNNING';
  else if (status === undefined) state = 'NEW';
  else if (status.state === 'RUNNING') state = 'ORPHANED';
  else state = status.state;
  const pid = alivePid ?? (state === 'ORPHANED' ? (lock?.holder?.pid ?? status?.pid) : undefined);
  return {
    id: loopId(dir, options.repoRoot),
    dir,
    state,
    ...(pid === undefined ? {} : { pid }),
    ...(remote && lock?.alive === true ? { host: holderHost } : {}),
    ...(state === 'ORPHANED' && lock?.pidReused === true ? { pidReused: true as const } : {}),
    ...(status === undefined
      ? {}
      : {
          ...(typeof status.feature === 'string' ? { feature: status.feature } : {}),
          iteration: status.iteration,
          maxIterations: status.maxIterations,
          storiesPassing: status.storiesPassing,
          storiesTotal: status.storiesTotal,
          ...(status.costUsd === undefined ? {} : { costUsd: status.costUsd }),
          updatedAt: status.updatedAt,
          ...(status.exitReason === undefined ? {} : { exitReason: status.exitReason }),
        }),
    ...(problem === undefined ? {} : { problem }),
  };
}

export async function listLoops(
  options: {
    repoRoot: string | undefined;
    dirs: readonly string[];
  } & LivenessProbe,
): Promise<LoopListing[]> {
  const dirs = await findLoopDirs(options.repoRoot, options.dirs);
  return Promise.all(dirs.map((dir) => describeLoop(dir, options)));
}

/** The repo-relative path (a stable, readable name); the absolute path outside the repo. */
export function loopId(dir: string, repoRoot: string | undefined): string {
  if (repoRoot === undefined) return dir;
  const path = relative(repoRoot, dir);
  return path === '' || path.startsWith('..') || isAbsolute(path) ? dir : path;
}
