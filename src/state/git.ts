import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { RalphError } from '../util/errors.js';

/** The git work tree around a folder, as far as ralph needs it. */
export interface GitRepo {
  /** The top of the work tree: the folder holding `.git` (for a linked worktree, its own top). */
  root: string;
  /** Where HEAD lives: `<root>/.git`, or the folder a `.git` file points to. */
  gitDir: string;
  /** The checked-out branch (may contain slashes); undefined when HEAD is detached. */
  branch: string | undefined;
  detached: boolean;
}

const BRANCH_REF = 'refs/heads/';

/**
 * Finds the repository around `cwd` by reading files, the way git itself discovers it, instead
 * of spawning `git rev-parse`: a process costs tens of milliseconds on every `ralph` start-up.
 * Walks up to the first `.git` directory (or `.git` file, as linked worktrees and submodules
 * have); returns undefined when there is none. GIT_DIR and ceiling variables are not honoured.
 */
export async function findGitRepo(cwd: string): Promise<GitRepo | undefined> {
  let dir = resolve(cwd);
  for (;;) {
    const found = await gitDirAt(dir);
    if (found !== undefined) {
      const head = await readHead(found.gitDir);
      if (head !== undefined) return { root: dir, gitDir: found.gitDir, ...head };
      if (found.gitFile !== undefined) {
        // Git stops here too: a worktree whose metadata was pruned is broken, not a plain folder.
        throw new RalphError(
          'NOT_A_GIT_REPO',
          `${found.gitFile} points to ${found.gitDir}, which is not a git directory`,
          {
            hint: 'If this was a linked worktree, run `git worktree prune` in the main repository and add it again, or pass the loop directory explicitly.',
            location: { file: found.gitFile },
          },
        );
      }
      // A `.git` folder without HEAD is not a repository to git either: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Parses the content of a HEAD file; exported for tests of odd HEADs. */
export function parseHead(content: string): { branch: string | undefined; detached: boolean } {
  const text = content.trim();
  if (text.startsWith('ref:')) {
    const ref = text.slice('ref:'.length).trim();
    // An unborn branch (fresh `git init`) still names it here, so no commit is needed.
    if (ref.startsWith(BRANCH_REF) && ref.length > BRANCH_REF.length) {
      return { branch: ref.slice(BRANCH_REF.length), detached: false };
    }
  }
  // A bare object id, or a symbolic ref outside refs/heads: not on a branch, as
  // `git branch --show-current` sees it.
  return { branch: undefined, detached: true };
}

async function gitDirAt(
  dir: string,
): Promise<{ gitDir: string; gitFile: string | undefined } | undefined> {
  const dotGit = join(dir, '.git');
  const stats = await stat(dotGit).catch(() => undefined);
  if (stats === undefined) return undefined;
  if (stats.isDirectory()) return { gitDir: dotGit, gitFile: undefined };
  if (!stats.isFile()) return undefined;
  return { gitDir: await readGitFile(dotGit), gitFile: dotGit };
}

async function readGitFile(file: string): Promise<string> {
  const content = await readFile(file, 'utf8');
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(content);
  const target = match?.[1];
  if (target === undefined) {
    throw new RalphError('NOT_A_GIT_REPO', `${file} is not a valid .git file (no "gitdir:" line)`, {
      hint: 'Repair or remove the .git file, or pass the loop directory explicitly.',
      location: { file },
    });
  }
  // Submodules write a path relative to the folder holding the .git file.
  return isAbsolute(target) ? target : resolve(dirname(file), target);
}

async function readHead(
  gitDir: string,
): Promise<{ branch: string | undefined; detached: boolean } | undefined> {
  let content: string;
  try {
    content = await readFile(join(gitDir, 'HEAD'), 'utf8');
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  return parseHead(content);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
