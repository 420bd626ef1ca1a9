import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckRunner, StartPoint } from './loop-types.js';

export type { StartPoint } from './loop-types.js';

/**
 * Test integrity (issue 12, item 2): an agent that cannot make a test pass can delete it, skip
 * it or take its assertions out, and the checks then pass. This reads the iteration's changes
 * from git — the commit recorded before the agent started against the work tree after it, plus
 * new untracked files — and names every such change to a test file.
 */

/** The parts of a diff the scan needs: statuses per path and the lines added and removed. */
export interface TestDiff {
  /** `git diff -M --name-status START`. */
  nameStatus: string;
  /** `git diff -M -U0 START`. */
  patch: string;
  /** New files git does not track yet, with their text: every line of them is added. */
  untracked: readonly { file: string; text: string }[];
}

/** Markers that turn a test off or narrow a run to some tests, per language. */
const SKIP_MARKERS: readonly RegExp[] = [
  /\b(?:it|test|describe|suite|context|bench)\s*\.\s*(?:skip|only|todo|fixme)\b/,
  /\b(?:xit|xtest|xdescribe|fit|fdescribe)\s*\(/,
  /\{\s*(?:skip|todo|only)\s*:\s*(?!false\b)/,
  /\bt\s*\.\s*(?:skip|todo)\s*\(/,
  /@pytest\.mark\.(?:skip|skipif|xfail)\b/,
  /@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b/,
  /\bpytest\.skip\s*\(/,
  /\bself\.skipTest\s*\(/,
  /\bt\.Skip(?:f|Now)?\s*\(/,
  /#\[\s*ignore\b/,
];

const ASSERTION =
  /\bexpect\s*\(|\bassert(?:_eq|_ne)?!\s*\(|\bassert(?:\.\w+)?\s*\(|\bassert\s+[^\s=(]|\bself\.assert\w+\s*\(|\bt\.(?:Error|Errorf|Fatal|Fatalf)\s*\(|\b(?:require|should)\.\w+\s*\(/g;

const UNTRACKED = ['ls-files', '--others', '--exclude-standard', '--full-name', '-z'];

/** undefined outside a git repository or before its first commit: nothing to compare with. */
export async function readStartPoint(
  runner: CheckRunner,
  cwd: string,
): Promise<StartPoint | undefined> {
  const head = (await runner.git(['rev-parse', '--verify', 'HEAD'], cwd))?.trim();
  if (head === undefined || head === '') return undefined;
  const stash = (await runner.git(['stash', 'create'], cwd))?.trim();
  const untracked = await runner.git(UNTRACKED, cwd);
  return {
    commit: stash === undefined || stash === '' ? head : stash,
    untracked: new Set(splitNul(untracked)),
  };
}

/** Reads the iteration's changes from git; undefined when git cannot say. */
export async function readTestDiff(
  runner: CheckRunner,
  cwd: string,
  start: StartPoint,
): Promise<TestDiff | undefined> {
  const [nameStatus, patch, others, top] = await Promise.all([
    runner.git(['diff', '-M', '--name-status', '--no-color', start.commit, '--'], cwd),
    // --text and --no-textconv: a .gitattributes the agent wrote (`-diff`, a textconv) must not
    // hide the lines of a test file behind "Binary files differ".
    runner.git(
      [
        'diff',
        '-M',
        '-U0',
        '--no-color',
        '--no-ext-diff',
        '--text',
        '--no-textconv',
        start.commit,
        '--',
      ],
      cwd,
    ),
    runner.git(UNTRACKED, cwd),
    runner.git(['rev-parse', '--show-toplevel'], cwd),
  ]);
  if (nameStatus === undefined || patch === undefined || top === undefined) return undefined;
  const root = top.trim();
  const untracked = await Promise.all(
    splitNul(others)
      .filter((file) => !start.untracked.has(file))
      .map(async (file) => ({
        file,
        text: await readFile(join(root, file), 'utf8').catch(() => ''),
      })),
  );
  return { nameStatus, patch, untracked };
}

function splitNul(text: string | undefined): string[] {
  return (text ?? '').split('\0').filter((file) => file !== '');
}

/** Every deletion, skip marker and lost assertion in the test files the globs match. */
export function findTestTampering(diff: TestDiff, globs: readonly string[]): string[] {
  const isTest = globMatcher(globs);
  const problems: string[] = [];
  for (const line of diff.nameStatus.split('\n')) {
    const [status, path] = line.split('\t');
    if (status === 'D' && path !== undefined && isTest(path)) {
      problems.push(`deleted test file ${path}`);
    }
    // A test renamed to a name the runner does not pick up is a deleted test.
    const renamedTo = line.split('\t')[2];
    if (status?.startsWith('R') === true && path !== undefined && renamedTo !== undefined) {
      if (isTest(path) && !isTest(renamedTo))
        problems.push(`moved test file ${path} out of the tests (to ${renamedTo})`);
    }
  }
  const lines = patchLines(diff.patch);
  for (const { file, text } of diff.untracked) {
    const entry = lines.get(file) ?? { added: [], removed: [] };
    entry.added.push(...text.split('\n'));
    lines.set(file, entry);
  }
  for (const [file, { added, removed }] of lines) {
    if (!isTest(file)) continue;
    const marker = SKIP_MARKERS.find(
      (pattern) => countMatching(added, pattern) > countMatching(removed, pattern),
    );
    if (marker !== undefined) {
      const example = added.find((each) => marker.test(each))?.trim() ?? '';
      problems.push(`added a skip/only/todo marker in ${file}: ${example.slice(0, 120)}`);
    }
    const [lost, gained] = [assertions(removed), assertions(added)];
    if (lost > gained) {
      problems.push(
        `removed ${lost - gained} assertion(s) from ${file} (${lost} removed, ${gained} added)`,
      );
    }
  }
  return problems;
}

/** Added and removed lines per file (the new path of a renamed one) of a `-U0` patch. */
function patchLines(patch: string): Map<string, { added: string[]; removed: string[] }> {
  const files = new Map<string, { added: string[]; removed: string[] }>();
  let current: { added: string[]; removed: string[] } | undefined;
  let oldPath: string | undefined;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = undefined;
      oldPath = undefined;
    } else if (line.startsWith('--- ')) {
      oldPath = line.slice(4).replace(/^a\//, '');
    } else if (line.startsWith('+++ ')) {
      const target = line.slice(4);
      // A deleted file's lines count against its old path (its deletion is reported anyway).
      const path = target === '/dev/null' ? (oldPath ?? '') : target.replace(/^b\//, '');
      current = files.get(path) ?? { added: [], removed: [] };
      files.set(path, current);
    } else if (current !== undefined && line.startsWith('+')) {
      current.added.push(line.slice(1));
    } else if (current !== undefined && line.startsWith('-')) {
      current.removed.push(line.slice(1));
    }
  }
  return files;
}

function countMatching(lines: readonly string[], pattern: RegExp): number {
  return lines.filter((line) => !isComment(line) && pattern.test(line)).length;
}

function assertions(lines: readonly string[]): number {
  return lines
    .filter((line) => !isComment(line))
    .reduce((sum, line) => sum + (line.match(ASSERTION)?.length ?? 0), 0);
}

/** A commented-out assertion is a removed one: comment lines never count as added. */
function isComment(line: string): boolean {
  const text = line.trim();
  return (
    text.startsWith('//') ||
    text.startsWith('/*') ||
    text.startsWith('*') ||
    (text.startsWith('#') && !text.startsWith('#['))
  );
}

/** A matcher for `**`, `*`, `?` and `{a,b}` globs against repository-relative paths. */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.map(globToRegExp);
  return (path) => patterns.some((pattern) => pattern.test(path));
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] ?? '';
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') source += '(?:';
    else if (char === '}') source += ')';
    else if (char === ',' && glob.lastIndexOf('{', i) > glob.lastIndexOf('}', i)) source += '|';
    else source += char.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
