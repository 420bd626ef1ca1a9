import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { BaseFiles } from './base-files.js';
import type { StartPoint } from './loop-types.js';

/**
 * A test runner's configuration decides which tests run: an `exclude` in vitest.config.ts, a
 * `testPathIgnorePatterns` in package.json's "jest", `addopts = -k "not mul"` in pytest.ini or a
 * `[[test]] harness = false` in Cargo.toml drops the failing test without touching it. So does a
 * rewritten executable the checks start (node_modules/.bin/vitest, bin/test). ralph compares all
 * of them with the integrity base: a change is a test change, rejected unless the story allows
 * test changes. A config file that appears where the base had no test files is set-up, not
 * tampering (a first story creates the project).
 */

/** Whole files that configure a test runner, relative to the repository. */
const CONFIG_FILES: readonly string[] = [
  ...['vitest.config', 'vitest.workspace', 'vite.config', 'jest.config', '.mocharc'].flatMap(
    (name) =>
      ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts', 'json', 'jsonc', 'yml', 'yaml'].map(
        (ext) => `${name}.${ext}`,
      ),
  ),
  'jest.setup.js',
  'jest.setup.ts',
  'vitest.setup.ts',
  'vitest.setup.js',
  '.mocharc',
  'pytest.ini',
  '.pytest.ini',
  'pytest.toml',
  '.pytest.toml',
  '.cargo/config.toml',
  '.cargo/config',
];

/** Parts of shared files that configure a runner: the file, and how to pick the part out. */
const CONFIG_PARTS: readonly { file: string; part: (text: string) => string; what: string }[] = [
  { file: 'package.json', part: jsonKeys(['jest', 'vitest', 'mocha', 'ava']), what: 'test keys' },
  { file: 'setup.cfg', part: iniSections(/^(?:tool:pytest|pytest)/), what: '[tool:pytest]' },
  { file: 'tox.ini', part: iniSections(/^pytest/), what: '[pytest]' },
  { file: 'pyproject.toml', part: iniSections(/^tool\.pytest/), what: '[tool.pytest]' },
  { file: 'Cargo.toml', part: iniSections(/^\[?(?:test|lib|bench)\]?$/), what: '[[test]]/[lib]' },
];

/** A Makefile or justfile is the runner's config when a check runs make or just. */
function buildFilesRunBy(commands: readonly string[]): string[] {
  const files = commands.some((command) => /\bmake\b/.test(command))
    ? ['Makefile', 'makefile', 'GNUmakefile']
    : [];
  if (commands.some((command) => /\bjust\b/.test(command))) files.push('justfile');
  return files;
}

/** Every file findRunnerConfigChanges compares, for readBaseFiles (package.json among them). */
export function runnerConfigFiles(commands: readonly string[]): string[] {
  return [...CONFIG_FILES, ...buildFilesRunBy(commands), ...CONFIG_PARTS.map(({ file }) => file)];
}

/** What differs from the base in the runner config and the executables the checks start. */
export async function findRunnerConfigChanges(
  base: BaseFiles,
  cwd: string,
  start: StartPoint,
  hadTests: boolean,
  commands: readonly string[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const file of [...CONFIG_FILES, ...buildFilesRunBy(commands)]) {
    const difference = await base.difference(file);
    if (difference === undefined) continue;
    const { before, now } = difference;
    if (before === now || (before === undefined && !hadTests)) continue;
    // vite.config is the app's build config too: it counts when it holds vitest's `test`.
    const vite = file.startsWith('vite.config');
    if (vite && ![before, now].some((text) => /\btest\s*:/.test(text ?? ''))) continue;
    problems.push(
      `${now === undefined ? 'deleted' : before === undefined ? 'added' : 'changed'} ${file}, which configures the test runner`,
    );
  }
  for (const { file, part, what } of CONFIG_PARTS) {
    const { before, now } = (await base.difference(file)) ?? {};
    if (before === undefined || now === undefined) continue;
    if (part(before) !== part(now)) {
      problems.push(`changed the ${what} of ${file}, which configure the test runner`);
    }
  }
  const executables = await hashExecutables(cwd, Object.keys(start.executables ?? {}));
  for (const [path, hash] of Object.entries(start.executables ?? {})) {
    // One that appears where the base had no tests is set-up (a first story installs vitest).
    if (executables[path] !== hash && !(hash === '' && !hadTests)) {
      const how = hash === '' ? 'added' : executables[path] === '' ? 'deleted' : 'changed';
      problems.push(`${how} ${path}, which a check runs`);
    }
  }
  return problems;
}

/**
 * The files a check starts by name: `node_modules/.bin/NAME` for a bare word (npx and package
 * scripts find them there), the path itself for `./x`, `bin/x`, and the script an interpreter
 * runs (`bash scripts/check.sh`, `node run.js`, `python3 tools/t.py`: attack 18), unless it is
 * a test file (the test scan judges those). From the commands and the package.json scripts they
 * run. A check that runs a package script also starts whatever `node_modules/.bin` holds under
 * the names of the programs a script calls (npm puts that folder first on PATH: attack 04).
 */
export function executablesRunBy(commands: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const command of commands) {
    for (const segment of command.split(/&&|\|\||[;|&\n]/)) {
      const words = segment
        .trim()
        .split(/\s+/)
        .filter((word) => !/^\w+=/.test(word));
      const [first, second] = words;
      const name = first === 'npx' || first === 'pnpx' || first === 'bunx' ? second : first;
      if (name === undefined || name === '' || name.startsWith('-')) continue;
      if (name.includes('/')) paths.add(name.replace(/^\.\//, ''));
      else paths.add(`node_modules/.bin/${name}`);
      const script = INTERPRETERS.test(name) ? words[1] : undefined;
      if (script !== undefined && !script.startsWith('-') && !LOOKS_LIKE_TEST.test(script)) {
        paths.add(script.replace(/^\.\//, ''));
      }
    }
  }
  if (commands.some((command) => PACKAGE_SCRIPT.test(command))) {
    for (const name of SHADOWED) paths.add(`node_modules/.bin/${name}`);
  }
  return [...paths];
}

const INTERPRETERS =
  /^(?:.*\/)?(?:ba|da|z)?sh$|^(?:.*\/)?(?:node|deno|bun|ruby|perl|python(?:\d(?:\.\d+)?)?)$/;
const LOOKS_LIKE_TEST =
  /(?:^|\/)(?:tests?|__tests__|spec)\/|[._-](?:test|spec)\.[cm]?[jt]sx?$|(?:^|\/)test_[^/]*\.py$|_test\.py$/;
const PACKAGE_SCRIPT = /\b(?:npm|pnpm|yarn|bun)\b/;
/** Programs package scripts call by name, which node_modules/.bin could shadow. */
const SHADOWED = ['node', 'npm', 'npx', 'sh', 'bash', 'env', 'python', 'python3'];

/**
 * SHA-256 of what each path is now (a link's target included); '' for an absent one, so one that
 * appears later (a node_modules/.bin/node shadowing node) is a change too.
 */
export async function hashExecutables(
  cwd: string,
  paths: readonly string[],
): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const path of paths) {
    const full = join(cwd, path);
    const target = await realpath(full).catch(() => undefined);
    const content =
      target === undefined ? undefined : await readFile(target).catch(() => undefined);
    if (target === undefined || content === undefined) {
      hashes[path] = '';
      continue;
    }
    hashes[path] = createHash('sha256').update(target).update('\0').update(content).digest('hex');
  }
  return hashes;
}

function jsonKeys(keys: readonly string[]): (text: string) => string {
  return (text) => {
    try {
      const value = JSON.parse(text) as Record<string, unknown>;
      return JSON.stringify(keys.map((key) => value[key] ?? null));
    } catch {
      return text;
    }
  };
}

/** The text of the INI/TOML sections whose name matches, in order. */
function iniSections(name: RegExp): (text: string) => string {
  return (text) => {
    let keep = false;
    const kept: string[] = [];
    for (const line of text.split('\n')) {
      const header = /^\s*\[\[?([^\]]+)\]\]?\s*$/.exec(line);
      if (header !== null) keep = name.test(header[1]?.trim() ?? '');
      if (keep) kept.push(line.trim());
    }
    return kept.join('\n');
  };
}
