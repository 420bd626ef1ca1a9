import { MAX_EXPANDED_WORDS, TooLargeToJudge } from '../limits.js';
import type { SyntaxNode } from './parse.js';

/**
 * What a shell word becomes before the command runs, computed without running anything: quotes
 * removed, backslash escapes and $'…' decoded, `$HOME`/`$PWD` substituted, braces `{a,b}`
 * expanded and `~` replaced. A word that depends on anything else — another variable, `$(…)`,
 * arithmetic — is `dynamic`: the guard cannot know it, and denies it wherever it matters.
 */

export interface StaticArg {
  dynamic: false;
  value: string;
  /** Unquoted `*`, `?` or `[`: the shell expands it against the file system. */
  glob: boolean;
}

export interface DynamicArg {
  dynamic: true;
  /** The word as written, for messages. */
  text: string;
}

export type Arg = StaticArg | DynamicArg;

/** The variables the guard resolves; everything else is unknown until the command runs. */
export interface WordEnv {
  home: string;
  /** The working directory, when known (it is not after a `cd $X`). */
  cwd: string | undefined;
}

interface Piece {
  text: string;
  /** Quoted or escaped: no brace, tilde or glob expansion. */
  quoted: boolean;
}

type Pieces = Piece[] | undefined;

const KNOWN_VARIABLES: Readonly<Record<string, (env: WordEnv) => string | undefined>> = {
  HOME: (env) => env.home,
  PWD: (env) => env.cwd,
};

/** The words one syntax node stands for (brace expansion can make several). */
export function evaluateWord(node: SyntaxNode, env: WordEnv): Arg[] {
  const pieces = piecesOf(node, env);
  if (pieces === undefined) return [{ dynamic: true, text: node.text }];
  return expandPieces(pieces, env, node.text);
}

function piecesOf(node: SyntaxNode, env: WordEnv): Pieces {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'variable_name':
      return unquotedPieces(node.text);
    case 'raw_string':
      return [{ text: node.text.slice(1, -1), quoted: true }];
    case 'ansi_c_string':
      return [{ text: decodeAnsiC(node.text.slice(2, -1)), quoted: true }];
    case 'string':
    case 'translated_string':
      return stringPieces(node, env);
    case 'concatenation': {
      const all: Piece[] = [];
      for (const child of node.children) {
        const part = piecesOf(child, env);
        if (part === undefined) return undefined;
        all.push(...part);
      }
      return all;
    }
    case 'simple_expansion':
    case 'expansion':
      return expansionPieces(node, env);
    default:
      // $(…), `…`, $((…)), <(…), arrays, brace ranges: known only at run time.
      return undefined;
  }
}

/** Unquoted text: `\x` is a literal x; everything else may still expand. */
function unquotedPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? '';
    if (char === '\\' && i + 1 < text.length) {
      i += 1;
      if (text[i] === '\n') continue; // a line continuation
      pieces.push({ text: text[i] ?? '', quoted: true });
    } else {
      pieces.push({ text: char, quoted: false });
    }
  }
  return pieces;
}

function expansionPieces(node: SyntaxNode, env: WordEnv): Pieces {
  // `$NAME` or `${NAME}` only: `${NAME:-x}`, `${#NAME}`, `${!NAME}` … are not resolved.
  const name = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/.exec(node.text);
  const variable = name?.[1] ?? name?.[2];
  if (variable === undefined) return undefined;
  const value = KNOWN_VARIABLES[variable]?.(env);
  return value === undefined ? undefined : [{ text: value, quoted: true }];
}

/** `"…"`: the quotes themselves, literal runs, and expansions that must resolve. */
function stringPieces(node: SyntaxNode, env: WordEnv): Pieces {
  const pieces: Piece[] = [];
  let covered = 0;
  for (const child of node.children) {
    covered += child.text.length;
    if (child.type === '"' || child.type === '$"') continue;
    if (child.type === 'string_content') {
      pieces.push({ text: unescapeDoubleQuoted(child.text), quoted: true });
      continue;
    }
    if (child.type === 'simple_expansion' || child.type === 'expansion') {
      const part = expansionPieces(child, env);
      if (part === undefined) return undefined;
      pieces.push(...part);
      continue;
    }
    if (!child.isNamed && child.text === '$') {
      pieces.push({ text: '$', quoted: true });
      continue;
    }
    return undefined;
  }
  // Text that belongs to no child (a grammar corner) is not understood: treat it as unknown.
  return covered === node.text.length ? pieces : undefined;
}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_match, char: string) => (char === '\n' ? '' : char));
}

const ANSI_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** `$'…'` escapes: \n, \xHH, \NNN (octal), \uHHHH, \UHHHHHHHH, \cX. */
export function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (match, code: string) => {
      const head = code[0] ?? '';
      if (head === 'x' || head === 'u' || head === 'U')
        return String.fromCodePoint(Number.parseInt(code.slice(1), 16));
      if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(code, 8) & 0xff);
      if (head === 'c') return String.fromCharCode((code.charCodeAt(1) || 0) & 0x1f);
      return ANSI_ESCAPES[code] ?? match;
    },
  );
}

function expandPieces(pieces: Piece[], env: WordEnv, text: string): Arg[] {
  return braceExpand(pieces).map((word) => {
    const tilde = expandTilde(word, env);
    if (tilde === undefined) return { dynamic: true, text };
    return {
      dynamic: false,
      value: tilde.map((piece) => piece.text).join(''),
      glob: tilde.some((piece) => !piece.quoted && /[*?[]/.test(piece.text)),
    };
  });
}

/** `~` and `~/…` become the home directory; `~user` is another home the guard cannot know. */
function expandTilde(pieces: Piece[], env: WordEnv): Piece[] | undefined {
  const [first] = pieces;
  if (first === undefined || first.quoted || first.text !== '~') return pieces;
  const next = pieces[1];
  if (next !== undefined && next.text !== '/') return next.quoted ? pieces : undefined;
  return [{ text: env.home, quoted: true }, ...pieces.slice(1)];
}

/** Bash brace expansion over unquoted `{a,b}` (ranges like {1..3} are left as they are). */
function braceExpand(pieces: Piece[]): Piece[][] {
  const open = pieces.findIndex((piece) => !piece.quoted && piece.text === '{');
  if (open < 0) return [pieces];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < pieces.length; i++) {
    const piece = pieces[i];
    if (piece === undefined || piece.quoted) continue;
    if (piece.text === '{') depth += 1;
    else if (piece.text === '}') {
      depth -= 1;
      if (depth === 0) {
        if (commas.length === 0) break;
        const prefix = pieces.slice(0, open);
        const suffix = pieces.slice(i + 1);
        const bounds = [open, ...commas, i];
        const results: Piece[][] = [];
        for (let k = 0; k + 1 < bounds.length; k++) {
          const middle = pieces.slice((bounds[k] ?? 0) + 1, bounds[k + 1]);
          results.push(...braceExpand([...prefix, ...middle, ...suffix]));
          if (results.length > MAX_EXPANDED_WORDS)
            throw new TooLargeToJudge(
              `a brace expansion makes more than ${MAX_EXPANDED_WORDS} words; name the files plainly or use a loop`,
            );
        }
        return results;
      }
    } else if (piece.text === ',' && depth === 1) commas.push(i);
  }
  // No matching `}` or no comma: the `{` is literal; expand braces after it.
  const rest = braceExpand(pieces.slice(open + 1));
  return rest.map((tail) => [...pieces.slice(0, open + 1), ...tail]);
}
