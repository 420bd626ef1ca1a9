import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { realPath, type GuardPolicy } from '../policy.js';
import { globToRegExp, sensitiveRule } from '../sensitive.js';

/**
 * Whether a folder tree holds a secret, for commands that read every file under a folder
 * (`grep -r`, `rg --hidden`, `tar c`, `zip -r`, `find -exec cat {}`). The walk is bounded in
 * depth and in entries so the guard stays fast; a walk cut short counts as "may hold one".
 */

export interface TreeFilter {
  /** Whether entries whose name starts with a dot are visited (rg and ag skip them). */
  hidden: boolean;
  /** Whether symbolic links to folders are followed (`grep -R`, `rg -L`). */
  follow: boolean;
  /** How deep below the root the command itself goes (`find -maxdepth`, `rg -d`). */
  maxDepth?: number;
  /** Whether a file is left out by the command's own options (`--exclude=.env`). */
  skipsFile?: (name: string, relative: string) => boolean;
  /** Whether a folder is left out (`--exclude-dir=node_modules`). */
  skipsDir?: (name: string, relative: string) => boolean;
}

export type TreeSecret =
  | { kind: 'secret'; path: string; rule: string }
  /** Too deep or too big to walk in full: the rest may hold a secret. */
  | { kind: 'unfinished'; path: string };

/** Beyond these the walk stops and says so. */
export const WALK_DEPTH = 8;
export const WALK_ENTRIES = 5000;

/** Folders never searched for secrets: dependencies and git's own store, big and not the agent's. */
const SKIPPED = new Set(['node_modules', '.git']);

/** The first secret under `root` (absolute) that the command would read, if any. */
export function findTreeSecret(
  root: string,
  policy: GuardPolicy,
  filter: TreeFilter,
): TreeSecret | undefined {
  const start = realPath(root);
  const rule = sensitiveRule(start, policy);
  if (rule !== undefined) return { kind: 'secret', path: start, rule };
  const state = { entries: 0 };
  return walk(start, '', 0, { policy, filter, state });
}

interface Walk {
  policy: GuardPolicy;
  filter: TreeFilter;
  state: { entries: number };
}

function walk(folder: string, relative: string, depth: number, w: Walk): TreeSecret | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return undefined; // a file, or nothing there: the command reads no tree
  }
  for (const entry of entries) {
    w.state.entries += 1;
    if (w.state.entries > WALK_ENTRIES) return { kind: 'unfinished', path: folder };
    const found = visit(folder, relative, depth, entry, w);
    if (found !== undefined) return found;
  }
  return undefined;
}

function visit(
  folder: string,
  relative: string,
  depth: number,
  entry: Dirent,
  w: Walk,
): TreeSecret | undefined {
  const { filter, policy } = w;
  const name = entry.name;
  if (!filter.hidden && name.startsWith('.')) return undefined;
  const path = join(folder, name);
  const rel = relative === '' ? name : `${relative}/${name}`;
  const isDir = entry.isDirectory() || (filter.follow && entry.isSymbolicLink() && isFolder(path));
  if (isDir) {
    if (SKIPPED.has(name) || filter.skipsDir?.(name, rel) === true) return undefined;
    const rule = sensitiveRule(realPath(path), policy);
    if (rule !== undefined) return { kind: 'secret', path, rule };
    if ((filter.maxDepth ?? Infinity) <= depth + 1) return undefined;
    if (depth + 1 >= WALK_DEPTH) return { kind: 'unfinished', path };
    return walk(path, rel, depth + 1, w);
  }
  // Without -R/-L a link is not followed, but a link to a file may still be read (tar, zip).
  if (filter.skipsFile?.(name, rel) === true) return undefined;
  const rule = sensitiveRule(path, policy) ?? sensitiveRule(realPath(path), policy);
  return rule === undefined ? undefined : { kind: 'secret', path, rule };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A glob test for one name or relative path; `anywhere` lets `*` cross `/` (tar, zip, find -path). */
export function globTest(glob: string, anywhere = false): (text: string) => boolean {
  const regex = globToRegExp(anywhere ? glob.replace(/\*+/g, '**') : glob);
  return (text) => regex.test(text);
}

/** What a denial says about a walk's result. */
export function describeTreeSecret(found: TreeSecret): string {
  return found.kind === 'secret'
    ? `reaches ${found.path}, a secret (${found.rule})`
    : `reaches more under ${found.path} than the guard can check (over ${WALK_DEPTH} levels or ${WALK_ENTRIES} entries), which may hold a secret`;
}
