import { isAbsolute, resolve } from 'node:path';
import type { GuardPolicy } from '../policy.js';
import { parseShell, type SyntaxNode } from './parse.js';
import { evaluateWord, type Arg } from './words.js';

/**
 * Walks a parsed command line the way bash would run it and hands every simple command — in
 * lists, pipelines, subshells, `$(…)`, backticks, process substitutions, conditions, loops and
 * function bodies — to `judge` with what it needs: its expanded words, whether its stdin is a
 * pipe, a here-document or a file, and the working directory after any `cd` before it.
 */

export interface Finding {
  decision: 'deny' | 'ask';
  rule: string;
  reason: string;
}

export type Stdin =
  | { kind: 'file'; arg: Arg }
  /** A here-document or here-string; undefined text when it holds expansions. */
  | { kind: 'text'; text: string | undefined };

export interface SimpleCommand {
  /** The source text, for messages. */
  text: string;
  /** The command as written after quote removal (`/bin/rm`, `rm`). */
  path: string;
  /** Its last path part (`rm`). */
  name: string;
  args: Arg[];
  piped: boolean;
  stdin: Stdin | undefined;
  /** The working directory it runs in; undefined after a `cd` the guard cannot follow. */
  cwd: string | undefined;
  depth: number;
}

export interface Judge {
  policy: GuardPolicy;
  findings: Finding[];
  deny(rule: string, reason: string): void;
  ask(rule: string, reason: string): void;
  /** Judges shell code found inside a command (`bash -c`, `eval`, a here-document to `sh`). */
  shell(code: string | undefined, cwd: string | undefined, depth: number, what: string): void;
  command(command: SimpleCommand): void;
  /** A redirection's target, written or read. */
  redirect(operator: string, target: Arg, cwd: string | undefined): void;
  /** `NAME=value` before a command or on its own. */
  assignment(name: string, value: Arg[], cwd: string | undefined, depth: number): void;
}

/** Nested `bash -c "bash -c …"` deeper than this is refused rather than followed forever. */
export const MAX_DEPTH = 8;

interface WalkState {
  cwd: string | undefined;
  piped: boolean;
  depth: number;
}

export function analyzeShell(code: string, cwd: string | undefined, depth: number, judge: Judge) {
  if (depth > MAX_DEPTH) {
    judge.deny('too-deep', `shell code nested more than ${MAX_DEPTH} levels deep`);
    return;
  }
  parseShell(code, (parsed) => {
    if (parsed.hasError) {
      judge.deny('parse-error', 'the command does not parse as bash; write it plainly');
      return;
    }
    walk(parsed.root, { cwd, piped: false, depth }, judge);
  });
}

/** Functions with these names would change what the guard assumes about the commands after. */
const SHADOWED = new Set([
  'cd',
  'pushd',
  'popd',
  'builtin',
  'command',
  'eval',
  'exec',
  'source',
  '.',
]);

const SCOPES = new Set(['subshell', 'command_substitution', 'process_substitution']);

/** A declaration command with no names, only listing flags: it prints variables, sets none. */
function printsAllVariables(node: SyntaxNode): boolean {
  const keyword = node.child(0)?.text ?? '';
  if (!['export', 'declare', 'typeset', 'readonly', 'local'].includes(keyword)) return false;
  return node.namedChildren.every(
    (child: SyntaxNode) => child.type === 'word' && /^-[xpr]+$/.test(child.text),
  );
}

function walk(node: SyntaxNode, state: WalkState, judge: Judge): void {
  switch (node.type) {
    case 'command':
      onCommand(node, state, judge);
      return;
    case 'pipeline': {
      // Every stage after the first reads the previous one's output. After a here-document
      // (`cat <<EOF | sh`) the grammar nests the rest of the pipeline in the redirect.
      const afterHeredoc = node.parent?.type === 'heredoc_redirect';
      node.namedChildren.forEach((stage: SyntaxNode, index: number) => {
        walk(stage, { ...state, piped: state.piped || afterHeredoc || index > 0 }, judge);
      });
      return;
    }
    case 'file_redirect':
      onRedirect(node, state, judge);
      return;
    case 'variable_assignment':
      onAssignment(node, state, judge);
      return;
    case 'declaration_command':
      // `export`, `export -p`, `declare`, `declare -x`, `typeset -p` alone: every variable.
      if (printsAllVariables(node)) {
        judge.deny(
          'environment',
          `\`${node.text}\` prints the environment, which holds the credentials of the agent's own CLI; print the one variable you need`,
        );
        return;
      }
      break;
    case 'function_definition': {
      // A function named cd (or builtin, command) changes what every later `cd` does.
      const name = node.childForFieldName('name')?.text ?? '';
      if (SHADOWED.has(name)) {
        judge.deny(
          'shadowed-builtin',
          `defines a function named \`${name}\`, which the guard cannot follow; call the builtin plainly`,
        );
        return;
      }
      break;
    }
    default:
      break;
  }
  if (SCOPES.has(node.type)) {
    // A subshell's `cd` does not outlive it.
    const inner = { ...state };
    for (const child of node.namedChildren) walk(child, inner, judge);
    return;
  }
  for (const child of node.namedChildren) walk(child, state, judge);
}

function onAssignment(node: SyntaxNode, state: WalkState, judge: Judge): void {
  const name = node.childForFieldName('name')?.text ?? '';
  const value = node.childForFieldName('value');
  const env = { home: judge.policy.homeDir, cwd: state.cwd };
  judge.assignment(name, value === null ? [] : evaluateWord(value, env), state.cwd, state.depth);
  if (value !== null) walk(value, state, judge);
}

function onRedirect(node: SyntaxNode, state: WalkState, judge: Judge): void {
  const operator = node.children.find((child: SyntaxNode) => !child.isNamed)?.text ?? '';
  const destination = node.childForFieldName('destination');
  for (const child of node.namedChildren) walk(child, state, judge);
  if (destination === null) return;
  // `>&2`, `2>&1`, `<&-`: duplicating or closing descriptors touches no file.
  if (/^[<>]&$|^&$/.test(operator) && /^(\d+-?|-)$/.test(destination.text)) return;
  if (destination.type === 'process_substitution') return; // a process, judged by the walk
  const env = { home: judge.policy.homeDir, cwd: state.cwd };
  const targets = evaluateWord(destination, env);
  for (const target of targets) judge.redirect(operator, target, state.cwd);
}

function onCommand(node: SyntaxNode, state: WalkState, judge: Judge): void {
  const env = { home: judge.policy.homeDir, cwd: state.cwd };
  const nameNode = node.childForFieldName('name');
  // Assignments, redirections and substitutions inside the words are judged on their own.
  for (const child of node.namedChildren) walk(child, state, judge);
  if (nameNode === null) return; // only assignments or redirections
  const words = [nameNode, ...node.childrenForFieldName('argument')].flatMap((word) =>
    evaluateWord(word.type === 'command_name' ? (word.firstNamedChild ?? word) : word, env),
  );
  const [first, ...args] = words;
  if (first === undefined) return;
  if (first.dynamic || first.glob) {
    judge.deny(
      'dynamic-command',
      `the command name \`${first.dynamic ? first.text : first.value}\` is only known when it runs; write the command literally`,
    );
    return;
  }
  const path = first.value;
  const command: SimpleCommand = {
    text: node.text,
    path,
    name: path.slice(path.lastIndexOf('/') + 1),
    args,
    piped: state.piped,
    stdin: stdinOf(node, env),
    cwd: state.cwd,
    depth: state.depth,
  };
  judge.command(command);
  // `builtin cd`, `command cd`, `command -p cd` change the directory as `cd` does.
  const changer = directoryChanger(command);
  if (changer !== undefined) state.cwd = cdTarget(changer, node);
  else if (command.name === 'eval' && command.args.some(mentionsCd)) state.cwd = undefined;
}

const CD_NAMES = new Set(['cd', 'pushd', 'popd']);

function directoryChanger(command: SimpleCommand): SimpleCommand | undefined {
  let current = command;
  for (;;) {
    if (CD_NAMES.has(current.name)) return current;
    if (current.name !== 'builtin' && current.name !== 'command') return undefined;
    const args = current.args.slice();
    while (args[0] !== undefined && !args[0].dynamic && /^-[pP]+$/.test(args[0].value))
      args.shift();
    const [next, ...rest] = args;
    if (next === undefined || next.dynamic) return undefined;
    current = { ...current, name: next.value, path: next.value, args: rest };
  }
}

/** `eval cd ..`, `eval "cd $D"`: the directory after it is not followed. */
function mentionsCd(arg: Arg): boolean {
  const text = arg.dynamic ? arg.text : arg.value;
  return /(^|[\s;&|({`])(cd|pushd|popd)(\s|$|;)/.test(text);
}

function stdinOf(node: SyntaxNode, env: { home: string; cwd: string | undefined }) {
  const parent = node.parent;
  const redirects = [
    ...node.namedChildren,
    ...(parent?.type === 'redirected_statement' ? parent.namedChildren : []),
  ];
  let stdin: Stdin | undefined;
  for (const redirect of redirects) {
    if (redirect.type === 'herestring_redirect') {
      const word = redirect.namedChildren.at(-1);
      const [value] = word === undefined ? [] : evaluateWord(word, env);
      stdin = {
        kind: 'text',
        text: value === undefined || value.dynamic ? undefined : value.value,
      };
    } else if (redirect.type === 'heredoc_redirect') {
      stdin = { kind: 'text', text: heredocText(redirect) };
    } else if (redirect.type === 'file_redirect') {
      const operator = redirect.children.find((child: SyntaxNode) => !child.isNamed)?.text;
      const destination = redirect.childForFieldName('destination');
      const descriptor = redirect.childForFieldName('descriptor')?.text ?? '0';
      if (operator === '<' && descriptor === '0' && destination !== null) {
        const [arg] = evaluateWord(destination, env);
        if (arg !== undefined) stdin = { kind: 'file', arg };
      }
    }
  }
  return stdin;
}

/** A here-document's text: literal with a quoted delimiter, else only without expansions. */
function heredocText(redirect: SyntaxNode): string | undefined {
  const start =
    redirect.namedChildren.find((child: SyntaxNode) => child.type === 'heredoc_start')?.text ?? '';
  const body = redirect.namedChildren.find((child: SyntaxNode) => child.type === 'heredoc_body');
  if (body === undefined) return '';
  if (/['"\\]/.test(start)) return body.text;
  if (body.namedChildren.some((child: SyntaxNode) => child.type !== 'heredoc_content'))
    return undefined;
  return body.text.replace(/\\([$`\\])/g, '$1');
}

/**
 * The working directory after `cd`: followed when the target is literal and the `cd` surely
 * ran before what comes next (in sequence or `&&`); otherwise unknown from here on.
 */
function cdTarget(command: SimpleCommand, node: SyntaxNode): string | undefined {
  if (command.name !== 'cd' || !unconditional(node)) return undefined;
  const operands = command.args.filter((arg) => arg.dynamic || !/^-[LPe@]+$/.test(arg.value));
  const [target] = operands;
  if (operands.length > 1 || target === undefined || target.dynamic || target.value === '-')
    return undefined;
  if (isAbsolute(target.value)) return resolve(target.value);
  return command.cwd === undefined ? undefined : resolve(command.cwd, target.value);
}

function unconditional(node: SyntaxNode): boolean {
  for (let current = node.parent; current !== null; current = current.parent) {
    switch (current.type) {
      case 'program':
      case 'subshell':
      case 'command_substitution':
      case 'process_substitution':
        return true;
      case 'redirected_statement':
      case 'compound_statement':
        continue;
      case 'list':
        if (current.children.some((child: SyntaxNode) => !child.isNamed && child.text === '||'))
          return false;
        continue;
      default:
        return false;
    }
  }
  return true;
}
