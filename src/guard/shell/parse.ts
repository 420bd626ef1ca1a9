import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { Language, Node, Parser } from 'web-tree-sitter';

/**
 * The shell parser: tree-sitter's bash grammar run by web-tree-sitter (WebAssembly), so ralph
 * installs without a C compiler. The native `tree-sitter` binding it replaces ships a linux-x64
 * prebuild that needs GLIBCXX_3.4.31, which Debian 12 lacks, so `npm install` fell back to
 * node-gyp (g++, make, python3). Depending on `tree-sitter-bash` just for its `.wasm` would still
 * run that package's `node-gyp-build` install script (a compile wherever its prebuild does not
 * load), and the packages that ship grammars as WASM carry an older bash grammar (0.20) or
 * sixteen languages (21 MB). So the build copies the grammar's `.wasm` (tree-sitter-bash 0.25.1,
 * a devDependency, the same grammar as before: the 2 044 package scripts of node_modules got the
 * same verdicts from both) beside this module in dist/, and ralph's runtime dependencies have no
 * install script at all (test/e2e/install/no-compiler.test.ts).
 *
 * Measured (bench/guard.bench.mjs, 2 shared cores, native before → WASM after): loading the
 * parser 21–32 ms → 24–43 ms (up to 91 ms on a busy machine); a decision in the guard service
 * median 0.26–0.28 ms → 0.24–0.26 ms; `ralph guard` for a Bash call, process start to exit,
 * median 109–118 ms → 143–157 ms as is and 68–107 ms → 132–134 ms without NODE_EXTRA_CA_CERTS
 * (a Read call, which loads no parser, is unchanged). The earlier note that web-tree-sitter
 * "costs over 500 ms to load" does not hold for 0.27. Over 40 000 decisions memory stays flat.
 *
 * WASM start-up is asynchronous, so the parser is loaded once per process by `loadShellParser()`
 * (awaited when the guard service starts and by `ralph guard` before a Bash call) and
 * `parseShell` stays synchronous after it. Trees live in WASM memory, which never shrinks:
 * `parseShell` hands the tree to a callback and frees it when the callback returns.
 */

export type SyntaxNode = Node;

export interface ParsedShell {
  root: SyntaxNode;
  /** tree-sitter recovers from errors; a tree with ERROR or MISSING nodes is not what bash runs. */
  hasError: boolean;
}

/** parseShell was called before loadShellParser() finished: a wiring mistake, not bad input. */
export class ShellParserNotLoaded extends Error {
  override readonly name = 'ShellParserNotLoaded';
  readonly code = 'SHELL_PARSER_NOT_LOADED';
  constructor() {
    super('the shell parser is not loaded (await loadShellParser() first)');
  }
}

interface LoadedGrammar {
  Parser: typeof Parser;
  language: Language;
}

// The one loaded grammar of the process: written once when loading succeeds, read-only after,
// so nothing of one run or one decision reaches the next.
let loading: Promise<LoadedGrammar> | undefined;
let loaded: LoadedGrammar | undefined;

export interface LoadOptions {
  /**
   * The process decides one call and exits (`ralph guard`). V8 then compiles the grammar with
   * its baseline compiler only: by default, after the first parse it optimises the grammar's
   * large lexer in the background, and the process cannot exit until that is done — measured
   * 1.3–2 s per `ralph guard` instead of ~0.1 s. A long-running process keeps the optimised code.
   */
  shortLived?: boolean;
}

/** Loads the WASM runtime and the bash grammar, once per process; later calls share it. */
export function loadShellParser(options: LoadOptions = {}): Promise<void> {
  // A V8 flag is process-wide and read when WASM is compiled, so it only matters before loading.
  if (options.shortLived === true && loading === undefined) setFlagsFromString('--liftoff-only');
  loading ??= load().then(
    (grammar) => {
      loaded = grammar;
      return grammar;
    },
    (error: unknown) => {
      loading = undefined; // a later call may try again
      throw error;
    },
  );
  return loading.then(() => undefined);
}

async function load(): Promise<LoadedGrammar> {
  // Imported here, not at the top: `ralph guard` judging a Read never pays for it.
  const { Parser, Language } = await import('web-tree-sitter');
  await Parser.init();
  const language = await Language.load(readFileSync(grammarFile()));
  return { Parser, language };
}

/** dist/ carries its own copy (see the build script); from src/ it is the devDependency's. */
function grammarFile(): string {
  const beside = fileURLToPath(new URL('tree-sitter-bash.wasm', import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
}

/**
 * Parses one Bash tool command (or a `bash -c` string) and hands the tree to `use`. Never throws
 * for bad input. The tree is freed when `use` returns: keep strings, never nodes, past it.
 */
export function parseShell<T>(text: string, use: (parsed: ParsedShell) => T): T {
  if (loaded === undefined) throw new ShellParserNotLoaded();
  // A parser per call (~0.01 ms) keeps the cached state to the grammar alone.
  const parser = new loaded.Parser();
  try {
    parser.setLanguage(loaded.language);
    const tree = parser.parse(text);
    if (tree === null) throw new Error('the shell parser returned no tree');
    try {
      return use({ root: tree.rootNode, hasError: tree.rootNode.hasError });
    } finally {
      tree.delete();
    }
  } finally {
    parser.delete();
  }
}
