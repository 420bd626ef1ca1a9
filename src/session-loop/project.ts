import { resolve } from 'node:path';
import { findGitRepo } from '../state/git.js';

/**
 * The folder whose `.claude/` holds the loops: the git work tree around `cwd`, else `cwd`. The
 * Stop hook gets the session's current directory, which moves when the model `cd`s into a
 * subfolder; `ralph loop start` may run from anywhere in the repository. Both resolve to the same
 * root this way. (On the Stop hook's fast path: state/git.ts reads files, it spawns nothing.)
 */
export async function projectDirOf(cwd: string): Promise<string> {
  const repo = await findGitRepo(cwd).catch(() => undefined);
  return repo?.root ?? resolve(cwd);
}
