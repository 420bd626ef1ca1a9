import { createHash } from 'node:crypto';
import { lstat, readFile, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckRunner, StartPoint } from './loop-types.js';
import { readVerifiedBlob, TAMPERED } from './base-files.js';
import { globMatcher } from './glob.js';

/**
 * The iteration's changes to test files, read without trusting git's view of the work tree: the
 * base's test files come from the object store (`ls-tree`, `cat-file`: plumbing, which no diff
 * driver, textconv, filter, prefix setting or pager touches), their content now from the disk.
 * So `git update-index --assume-unchanged` / `--skip-worktree`, a `.gitattributes` with `-diff`
 * or a clean filter, and `diff.noprefix` or `core.quotePath` in .git/config hide nothing: a test
 * file whose bytes differ from the base is compared whole.
 */

/** Every git call here ignores `refs/replace` (an agent's replacement of the base commit). */
const GIT = ['--no-replace-objects', '-c', 'core.quotePath=false'];
const LISTED = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--full-name'];
const UNTRACKED = ['ls-files', '--others', '--exclude-standard', '--full-name', '-z'];
/** Test files larger than this are compared by hash only (a change is not scanned line by line). */
const MAX_TEXT_BYTES = 2 * 1024 * 1024;

export interface TestFileChange {
  file: string;
  /** The file's text at the base ('' for a new file). */
  before: string;
  after: string;
}

export interface TestDiff {
  /** git pointed somewhere other than the repository ralph runs in (core.worktree). */
  elsewhere?: string | undefined;
  /** Whether the base had any test file (a project with none has nothing to weaken yet). */
  baseHadTests: boolean;
  deleted: string[];
  /** Changed test files git was told to look away from (`update-index` flags), with the flag. */
  hidden: { file: string; flag: 'assume-unchanged' | 'skip-worktree' }[];
  /** A test file whose content now lives only under a path the test globs do not match. */
  movedOut: { from: string; to: string }[];
  changed: TestFileChange[];
  /** Test files whose base blob in .git/objects is not what its id says. */
  tampered?: string[] | undefined;
}

/** undefined outside a git repository or before its first commit: nothing to compare with. */
export async function readStartPoint(
  runner: CheckRunner,
  cwd: string,
  globs: readonly string[] = [],
): Promise<StartPoint | undefined> {
  const head = (await runner.git([...GIT, 'rev-parse', '--verify', 'HEAD'], cwd))?.trim();
  if (head === undefined || head === '') return undefined;
  const stash = (await runner.git([...GIT, 'stash', 'create'], cwd))?.trim();
  const untracked = splitNul(await runner.git([...GIT, ...UNTRACKED], cwd));
  // Untracked test files are part of the base too: written to the object store as they are now
  // (no clean filter), so a later change to one is compared like any tracked test's.
  const isTest = globMatcher(globs);
  const tests = untracked.filter(isTest);
  const hashes =
    tests.length === 0
      ? []
      : ((
          await runner.git([...GIT, 'hash-object', '-w', '--no-filters', '--', ...tests], cwd)
        )?.split('\n') ?? []);
  const testBlobs: Record<string, string> = {};
  tests.forEach((file, index) => {
    const hash = hashes[index]?.trim();
    if (hash !== undefined && hash !== '') testBlobs[file] = hash;
  });
  return {
    commit: stash === undefined || stash === '' ? head : stash,
    untracked: new Set(untracked.filter((file) => testBlobs[file] === undefined)),
    testBlobs,
  };
}

/** The test files (by `globs`) that differ between `start` and the disk; undefined when git cannot say. */
export async function readTestDiff(
  runner: CheckRunner,
  cwd: string,
  start: StartPoint,
  globs: readonly string[],
): Promise<TestDiff | undefined> {
  const isTest = globMatcher(globs);
  const [tree, listed, top] = await Promise.all([
    runner.git([...GIT, 'ls-tree', '-r', '-z', '--full-tree', start.commit], cwd),
    runner.git([...GIT, ...LISTED], cwd),
    runner.git([...GIT, 'rev-parse', '--show-toplevel'], cwd),
  ]);
  if (tree === undefined || listed === undefined || top === undefined) return undefined;
  // A core.worktree the agent set in .git/config would have ralph read a pristine copy elsewhere:
  // the files are read where ralph runs, and the mismatch is itself a finding.
  const told = top.trim();
  const here = await realpath(cwd).catch(() => cwd);
  const inside = here === told || here.startsWith(`${told}/`);
  const root = inside ? told : here;
  const base = new Map<string, { mode: string; hash: string }>();
  for (const entry of splitNul(tree)) {
    const match = /^(\d+) blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match?.[3] !== undefined && isTest(match[3])) {
      base.set(match[3], { mode: match[1] ?? '', hash: match[2] ?? '' });
    }
  }
  for (const [file, hash] of Object.entries(start.testBlobs ?? {})) {
    if (isTest(file)) base.set(file, { mode: '100644', hash });
  }
  const diff: TestDiff = {
    ...(inside ? {} : { elsewhere: told }),
    baseHadTests: base.size > 0,
    deleted: [],
    hidden: [],
    movedOut: [],
    changed: [],
    tampered: [],
  };
  const now = new Map<string, Buffer>();
  for (const file of new Set(splitNul(listed))) {
    if (start.untracked.has(file) && !base.has(file)) continue;
    if (!isTest(file) && !base.has(file)) continue;
    const content = await readDisk(join(root, file));
    if (content !== undefined) now.set(file, content);
  }
  let renames: Map<string, string> | undefined;
  const oldText = async (hash: string, file: string): Promise<string> => {
    const read = await readVerifiedBlob(runner, cwd, hash);
    if (read !== TAMPERED) return read ?? '';
    (diff.tampered ??= []).push(file);
    return '';
  };
  for (const [file, { mode, hash }] of base) {
    const content = now.get(file) ?? (await readDisk(join(root, file)));
    if (content === undefined) {
      renames ??= await readRenames(runner, cwd, start);
      const moved = renames.get(file);
      if (moved !== undefined && !isTest(moved)) diff.movedOut.push({ from: file, to: moved });
      else if (moved === undefined) diff.deleted.push(file);
      else {
        const after = await readDisk(join(root, moved));
        diff.changed.push({ file: moved, before: await oldText(hash, file), after: text(after) });
        now.delete(moved);
      }
      continue;
    }
    now.delete(file);
    if (mode === '160000' || blobHash(content, hash.length) === hash) continue;
    if (content.length > MAX_TEXT_BYTES) continue;
    diff.changed.push({ file, before: await oldText(hash, file), after: text(content) });
  }
  for (const [file, content] of now) {
    if (isTest(file) && content.length <= MAX_TEXT_BYTES) {
      diff.changed.push({ file, before: '', after: text(content) });
    }
  }
  // Said by name: a changed test git was told not to see is no accident.
  const changed = new Set(diff.changed.map((each) => each.file));
  for (const entry of splitNul(await runner.git([...GIT, 'ls-files', '-v', '-z'], cwd))) {
    const [tag, file] = [entry.slice(0, 1), entry.slice(2)];
    if (!changed.has(file)) continue;
    if (tag === 'S' || tag === 's') diff.hidden.push({ file, flag: 'skip-worktree' });
    else if (tag !== tag.toUpperCase()) diff.hidden.push({ file, flag: 'assume-unchanged' });
  }
  return diff;
}

/**
 * Every test file's content hash as it is on disk now: compared before and after the checks
 * run, a difference means something swapped the tests only while they ran (attack 17).
 */
export async function readTestFingerprint(
  runner: CheckRunner,
  cwd: string,
  globs: readonly string[],
): Promise<Map<string, string>> {
  const isTest = globMatcher(globs);
  const [listed, top] = await Promise.all([
    runner.git([...GIT, ...LISTED], cwd),
    runner.git([...GIT, 'rev-parse', '--show-toplevel'], cwd),
  ]);
  const root = top?.trim() ?? cwd;
  const fingerprint = new Map<string, string>();
  for (const file of new Set(splitNul(listed).filter(isTest))) {
    const content = await readDisk(join(root, file));
    fingerprint.set(file, content === undefined ? '' : blobHash(content, 40));
  }
  return fingerprint;
}

/** The files whose hash differs between two fingerprints (added and removed ones too). */
export function fingerprintChanges(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((file) => before.get(file) !== after.get(file)).sort();
}

/**
 * Where git's rename detection says files gone from the disk went. Only ever used to excuse a
 * deletion, and then the moved file is compared with the old one, so git's view cannot hide much.
 */
async function readRenames(
  runner: CheckRunner,
  cwd: string,
  start: StartPoint,
): Promise<Map<string, string>> {
  const renames = new Map<string, string>();
  const status = await runner.git(
    [...GIT, 'diff', '-M', '--name-status', '-z', '--no-ext-diff', start.commit, '--'],
    cwd,
  );
  const parts = splitNul(status);
  for (let i = 0; i < parts.length; i += 1) {
    const code = parts[i] ?? '';
    const [from, to] = [parts[i + 1], parts[i + 2]];
    if (code.startsWith('R') && from !== undefined && to !== undefined) renames.set(from, to);
    i += /^[RC]/.test(code) ? 2 : 1;
  }
  return renames;
}

/** A file's bytes (a link's target, as git stores it), or undefined when it is not there. */
async function readDisk(path: string): Promise<Buffer | undefined> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return undefined;
  if (info.isSymbolicLink()) return Buffer.from(await readlink(path));
  if (!info.isFile()) return undefined;
  return readFile(path).catch(() => undefined);
}

/** git's object id of a blob with this content (SHA-1, or SHA-256 in a repository that uses it). */
export function blobHash(content: Buffer, length: number): string {
  const hash = createHash(length === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${content.length}\0`);
  hash.update(content);
  return hash.digest('hex');
}

function text(content: Buffer | undefined): string {
  return content === undefined ? '' : content.toString('utf8');
}

export function splitNul(text: string | undefined): string[] {
  return (text ?? '').split('\0').filter((file) => file !== '');
}
