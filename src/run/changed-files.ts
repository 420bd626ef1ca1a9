import { readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { runToCompletion } from '../agents/spawn.js';
import {
  findStubs,
  parseUnifiedDiff,
  wholeFile,
  type FileAdditions,
  type StubFinding,
} from './stub-scan.js';

/** What ralph scanned and what it found: the report shows both, so "no stubs" has a scope. */
export interface ChangeScan {
  /** The base the feature branch was compared with, e.g. `main (3f2a1c0)`, or why there is none. */
  base: string;
  files: string[];
  findings: StubFinding[];
  /** Set when the scan could not be done (no git, a diff too large); the verdict mentions it. */
  problem: string | undefined;
}

export interface ChangeScanInput {
  repoRoot: string;
  branch: string | undefined;
  /** Branches a feature starts from, in the order they are tried (config protectedBranches). */
  baseBranches: readonly string[];
  /** Folders to leave out (the loop directory: ralph's files, not the feature's code). */
  exclude: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal | undefined;
}

/** git's empty tree: the base of a repository with no branch to compare with. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const GIT_TIMEOUT_MS = 60_000;
const MAX_DIFF_BYTES = 32 * 1024 * 1024;
const MAX_UNTRACKED_BYTES = 1024 * 1024;

/**
 * The lines the feature added: the working tree (committed or not) against the merge base with
 * the first base branch that exists, plus untracked files, minus the excluded folders.
 */
export async function scanChanges(input: ChangeScanInput): Promise<ChangeScan> {
  const git = (args: string[], maxBuffer?: number) =>
    runToCompletion('git', args, {
      cwd: input.repoRoot,
      env: input.env,
      timeoutMs: GIT_TIMEOUT_MS,
      signal: input.signal,
      ...(maxBuffer === undefined ? {} : { maxBuffer }),
    });
  const base = await findBase(input, git);
  const diff = await git(
    ['diff', '-U0', '--no-color', '--no-ext-diff', '--no-renames', base.commit],
    MAX_DIFF_BYTES,
  );
  if (diff.failed) {
    const why = diff.isMaxBuffer ? 'the diff is larger than 32 MiB' : diff.stderr.trim();
    return { base: base.label, files: [], findings: [], problem: `git diff failed: ${why}` };
  }
  const additions = parseUnifiedDiff(diff.stdout);
  const untracked = await git(['ls-files', '--others', '--exclude-standard', '-z']);
  for (const file of untracked.stdout.split('\0').filter((each) => each !== '')) {
    const content = await readFile(join(input.repoRoot, file)).catch(() => undefined);
    if (content === undefined || content.length > MAX_UNTRACKED_BYTES || content.includes(0))
      continue;
    additions.push(wholeFile(file, content.toString('utf8')));
  }
  const excluded = input.exclude.map((dir) => {
    const path = isAbsolute(dir) ? relative(input.repoRoot, dir) : dir;
    return path.endsWith('/') ? path : `${path}/`;
  });
  const kept = additions.filter(
    (each: FileAdditions) => !excluded.some((dir) => each.file.startsWith(dir)),
  );
  return {
    base: base.label,
    files: kept.map((each) => each.file).sort(),
    findings: kept.flatMap(findStubs),
    problem: undefined,
  };
}

type Git = (args: string[]) => Promise<{ failed: boolean; stdout: string }>;

async function findBase(
  input: ChangeScanInput,
  git: Git,
): Promise<{ commit: string; label: string }> {
  for (const name of input.baseBranches) {
    if (name === input.branch) continue;
    const found = await git(['merge-base', 'HEAD', name]);
    if (!found.failed) {
      const commit = found.stdout.trim();
      return { commit, label: `${name} (merge base ${commit.slice(0, 7)})` };
    }
  }
  if (input.branch !== undefined && input.baseBranches.includes(input.branch)) {
    return {
      commit: 'HEAD',
      label: `HEAD (on the base branch ${input.branch}: uncommitted changes)`,
    };
  }
  return { commit: EMPTY_TREE, label: 'no base branch found: every file counts as added' };
}
