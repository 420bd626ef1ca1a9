import { relative } from 'node:path';
import { isLoopDir } from '../../monitor/loops.js';
import { findGitRepo } from '../../state/git.js';
import { resolveLoopDir } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import type { CliContext } from '../context.js';

/** A loop directory that attach, stop, logs or monitor looks at. */
export interface WatchTarget {
  dir: string;
  /** As a person would type it: relative to cwd. */
  name: string;
  repoRoot: string | undefined;
}

/**
 * DIR, or `.ralph/<branch>/` of the repo around cwd, which must already be a loop directory.
 * These commands only look, so the protected-branch warning of `ralph run` does not apply.
 */
export async function resolveWatchTarget(
  context: CliContext,
  dir: string | undefined,
): Promise<WatchTarget> {
  const resolved = await resolveLoopDir({ dir, cwd: context.cwd, protectedBranches: [] });
  if (!(await isLoopDir(resolved.dir))) {
    throw new RalphError('LOOP_DIR_NOT_FOUND', `${resolved.dir} is not a loop directory`, {
      hint: '`ralph list` shows the loop directories of this repository; `ralph init` creates one.',
    });
  }
  const repoRoot =
    resolved.repoRoot ?? (await findGitRepo(context.cwd).catch(() => undefined))?.root;
  return { dir: resolved.dir, name: shownPath(context.cwd, resolved.dir), repoRoot };
}

export function shownPath(cwd: string, path: string): string {
  const shown = relative(cwd, path);
  return shown === '' ? '.' : shown.startsWith('..') && shown.split('/').length > 3 ? path : shown;
}
