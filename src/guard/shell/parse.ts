import { createRequire } from 'node:module';

/**
 * The shell parser: tree-sitter with the bash grammar, as native N-API modules (prebuilt for
 * linux/macOS/windows on x64 and arm64). Why not sh-syntax (mvdan/sh in WASM), which we tried
 * first: its JSON tree stops at statements — a command is only `{Pos, End}`, with no name, no
 * arguments and no node types — so nothing can be judged from it, and every parse re-compiles
 * its 750 KB WASM module (12–16 ms per call). web-tree-sitter costs over 500 ms to load. The
 * native grammar loads in ~25 ms and parses a command in well under 0.1 ms.
 *
 * Loaded synchronously through require (both packages are CommonJS), once, on first use.
 */

// The packages are CommonJS with `export =`: their types are reachable only this way here.
// eslint-disable-next-line @typescript-eslint/consistent-type-imports
type ParserModule = typeof import('tree-sitter');
type Parser = InstanceType<ParserModule>;
// eslint-disable-next-line @typescript-eslint/consistent-type-imports
export type SyntaxNode = import('tree-sitter').SyntaxNode;

let parser: Parser | undefined;

function load(): Parser {
  if (parser !== undefined) return parser;
  const require = createRequire(import.meta.url);
  const ParserClass = require('tree-sitter') as ParserModule;
  const bash = require('tree-sitter-bash') as Parameters<Parser['setLanguage']>[0];
  const instance = new ParserClass();
  instance.setLanguage(bash);
  parser = instance;
  return instance;
}

export interface ParsedShell {
  root: SyntaxNode;
  /** tree-sitter recovers from errors; a tree with ERROR or MISSING nodes is not what bash runs. */
  hasError: boolean;
}

/** Parses one Bash tool command (or a `bash -c` string). Never throws for bad input. */
export function parseShell(text: string): ParsedShell {
  const tree = load().parse(text);
  return { root: tree.rootNode, hasError: tree.rootNode.hasError };
}
