import { tamperedObject } from './check-setup.js';
import type { TestDiff } from './test-tree.js';
import { findTestWeakening } from './test-weakening.js';

export {
  fingerprintChanges,
  readStartPoint,
  readTestDiff,
  readTestFingerprint,
  type TestDiff,
} from './test-tree.js';
export type { StartPoint } from './loop-types.js';
export { globMatcher } from './glob.js';

/**
 * Test integrity (issue 12, item 2): an agent that cannot make a test pass can delete it, skip
 * it or take its assertions out, and the checks then pass. Each changed test file is compared
 * whole, before and after, with its comments taken out first (an assertion inside `/* … *\/` or
 * after `//` asserts nothing): more markers that turn tests off than before, or fewer assertions,
 * is tampering. Patterns can be dodged; the test counts of test-counts.ts are the wall that does
 * not read the text.
 */

interface Marker {
  what: string;
  pattern: RegExp;
}

/** Code that turns a test off, narrows a run to some tests, or ends the test process early. */
const MARKERS: readonly Marker[] = [
  ...[
    /\b(?:it|test|describe|suite|context|bench)\s*\.\s*(?:skip|only|todo|fixme)\b/,
    /\b(?:xit|xtest|xdescribe|fit|fdescribe)\s*\(/,
    // require('node:test').skip(…), and skip/todo/only taken out of node:test by name.
    /\brequire\s*\(\s*['"](?:node:)?test['"]\s*\)\s*\.\s*(?:skip|only|todo)\b/,
    /\{[^}]*\b(?:skip|todo|only)\b[^}]*\}\s*(?:=\s*require\s*\(\s*|from\s*)['"](?:node:)?test['"]/,
    // { skip: true }, { 'skip': 'why' }, { timeout: 5, todo: true }
    /['"]?\b(?:skip|todo|only)\b['"]?\s*:\s*(?!(?:false|undefined|null|0)\b)[^\s,}]/,
    /\bt\s*\.\s*(?:skip|todo)\s*\(/,
    /@pytest\.mark\.(?:skip|skipif|xfail)\b/,
    /\bpytestmark\s*=/,
    /@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b/,
    /\bpytest\.(?:skip|xfail|exit)\s*\(/,
    /\bself\.skipTest\s*\(/,
    /\bt\.Skip(?:f|Now)?\s*\(/,
    /#\[\s*ignore\b/,
  ].map((pattern) => ({ what: 'a skip/only/todo marker', pattern })),
  ...[
    /\bif\s*\(\s*(?:false|0|null|undefined|void\s+0|!\s*(?:1|true))\s*\)/,
    /\bif\s+(?:False|0|None)\s*:/,
    /\bif\s+false\s*\{/,
    /\bwhile\s*\(\s*(?:false|0)\s*\)/,
  ].map((pattern) => ({ what: 'code that never runs (if false)', pattern })),
  ...[
    /\b(?:process\s*\.\s*(?:exit|reallyExit|abort|kill)|os\._exit|sys\.exit|os\.Exit|process::exit)\s*\(/,
    /\bprocess\s*\.\s*exitCode\s*=/,
  ].map((pattern) => ({ what: 'an early exit of the test process', pattern })),
  ...[
    /(?:require\s*\(\s*|from\s+|import\s+)['"]\.{1,2}\/[^'"]*(?:assert|expect|chai|should)[^'"]*['"]/i,
    /\b(?:const|let|var|function)\s+(?:assert|expect)\b\s*(?:=(?!\s*(?:require\b|await\s+import\b|\w+\s*\.\s*(?:expect|assert|strict)\b))|\()/,
    /(?<!(?:const|let|var)\s+)\b(?:assert|expect)(?:\s*\.\s*\w+)*\s*=(?![=>])/,
    /^\s*def\s+assert\w*\s*\(/m,
  ].map((pattern) => ({ what: 'a replaced assert or expect', pattern })),
];

const ASSERTION =
  /\bexpect\s*\(|\bassert(?:_eq|_ne)?!\s*\(|\bassert(?:\.\w+)?\s*\(|\bassert\s+[^\s=(]|\bself\.assert\w+\s*\(|\bt\.(?:Error|Errorf|Fatal|Fatalf)\s*\(|\b(?:require|should)\.\w+\s*\(/g;

/** Every deletion, marker and lost assertion in the test files of `diff`. */
export function findTestTampering(diff: TestDiff): string[] {
  const problems: string[] = diff.deleted.map((path) => `deleted test file ${path}`);
  if (diff.elsewhere !== undefined) {
    problems.push(`pointed git's work tree elsewhere (${diff.elsewhere}: core.worktree)`);
  }
  for (const { file, flag } of diff.hidden) {
    problems.push(
      `hid changes to ${file} from git (update-index --${flag}; ralph reads the file itself)`,
    );
  }
  for (const file of diff.tampered ?? []) problems.push(tamperedObject(file));
  for (const { from, to } of diff.movedOut) {
    problems.push(`moved test file ${from} out of the tests (to ${to})`);
  }
  for (const { file, before, after } of diff.changed) {
    const [old, now] = [withoutComments(before, file), withoutComments(after, file)];
    for (const what of new Set(MARKERS.map((marker) => marker.what))) {
      const patterns = MARKERS.filter((marker) => marker.what === what);
      const added = patterns.find(({ pattern }) => count(now, pattern) > count(old, pattern));
      if (added === undefined) continue;
      const oldLines = new Set(old.split('\n').map((line) => line.trim()));
      const example =
        now
          .split('\n')
          .map((line) => line.trim())
          .find((line) => added.pattern.test(line) && !oldLines.has(line)) ?? '';
      problems.push(`added ${what} in ${file}: ${example.slice(0, 120)}`);
    }
    if (before !== '') problems.push(...findTestWeakening(file, old, now));
    const [lost, kept] = [assertions(old), assertions(now)];
    if (lost > kept) {
      problems.push(
        `removed ${lost - kept} assertion(s) from ${file} (${lost} before, ${kept} now)`,
      );
    }
  }
  return problems;
}

function count(text: string, pattern: RegExp): number {
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  return [...text.matchAll(new RegExp(pattern.source, flags))].length;
}

function assertions(text: string): number {
  return text.match(ASSERTION)?.length ?? 0;
}

/**
 * The text with its comments blanked (line breaks kept): `//` and `/* *\/` in the C family, `#`
 * and triple-quoted strings in Python (a docstring can wrap code as well as a comment can).
 * String literals are kept, so `'http://…'` is no comment.
 */
export function withoutComments(text: string, file: string): string {
  const python = /\.pyi?$/.test(file);
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    const rest = text.startsWith.bind(text);
    if (python && (rest('"""', i) || rest("'''", i))) {
      const end = text.indexOf(text.slice(i, i + 3), i + 3);
      const stop = end === -1 ? text.length : end + 3;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if ((python && char === '#') || (!python && rest('//', i))) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (!python && rest('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += blank(text.slice(i, stop));
      i = stop;
    } else if (char === '"' || char === "'" || (char === '`' && !python)) {
      let j = i + 1;
      while (j < text.length && text[j] !== char && !(char !== '`' && text[j] === '\n')) {
        j += text[j] === '\\' ? 2 : 1;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += char;
      i += 1;
    }
  }
  return out;
}

function blank(text: string): string {
  return text.replace(/[^\n]/g, '');
}
