/**
 * ralph's own stub detection for `ralph verify`: the lines the feature added (its diff against
 * the base branch, plus untracked files) searched for TODO markers, "not implemented" and empty
 * function bodies. It runs whatever the agent says, so a verdict of VERIFIED over a stub left in
 * the code does not stand on the agent's word alone. Patterns, not a parser: a finding is a
 * line for a person (or the next iteration) to look at, and the report says so.
 */

export type StubKind = 'todo' | 'not-implemented' | 'empty-body';

export interface StubFinding {
  /** Relative to the repository root. */
  file: string;
  line: number;
  kind: StubKind;
  /** The line, trimmed and cut to a readable length. */
  text: string;
}

export interface AddedLine {
  line: number;
  text: string;
}

export interface FileAdditions {
  file: string;
  added: AddedLine[];
}

const TODO = /\b(TODO|FIXME|XXX|HACK)\b/;
const NOT_IMPLEMENTED =
  /not (yet )?implemented|\bunimplemented!\s*\(|\btodo!\s*\(|NotImplemented(Error|Exception)/i;
/** Control flow ends in `) {` too; an empty `if` or `catch` is not a stub of a function. */
const CONTROL_FLOW = /(^|[^\w.])(if|for|while|switch|catch|with|elif)\s*\(/;
/** `) {}`, `): T {}`, `) -> T {}`, `=> {}` at the end of a line: a body with nothing in it. */
const EMPTY_BODY_ONE_LINE = /(\)\s*((:|->)\s*[^{};=]+)?|=>)\s*\{\s*\}\s*[;,]?\s*$/;
/** A function head whose body opens at the end of the line. */
const BODY_OPENS = /\)\s*((:|->)\s*[^{};=]+)?\s*\{\s*$/;
const PYTHON_DEF = /^\s*(async\s+)?def\s+\w+\s*\(.*\)\s*(->\s*[^:]+)?:\s*(#.*)?$/;
const PYTHON_DEF_ONE_LINE =
  /^\s*(async\s+)?def\s+\w+\s*\(.*\)\s*(->\s*[^:]+)?:\s*(pass|\.\.\.)\s*$/;
const MAX_TEXT = 160;

/** The findings in one file's added lines, in line order. */
export function findStubs(additions: FileAdditions): StubFinding[] {
  const found: StubFinding[] = [];
  const { file, added } = additions;
  const add = (at: AddedLine, kind: StubKind): void => {
    const text = at.text.trim();
    found.push({
      file,
      line: at.line,
      kind,
      text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text,
    });
  };
  for (const [index, at] of added.entries()) {
    if (NOT_IMPLEMENTED.test(at.text)) add(at, 'not-implemented');
    else if (TODO.test(at.text)) add(at, 'todo');
    else if (isEmptyBody(at, added[index + 1])) add(at, 'empty-body');
  }
  return found;
}

function isEmptyBody(at: AddedLine, next: AddedLine | undefined): boolean {
  const { text } = at;
  if (PYTHON_DEF_ONE_LINE.test(text)) return true;
  const nextText = next?.line === at.line + 1 ? next.text.trim() : undefined;
  if (PYTHON_DEF.test(text)) return nextText === 'pass' || nextText === '...';
  if (CONTROL_FLOW.test(text)) return false;
  if (EMPTY_BODY_ONE_LINE.test(text)) return !isNoOpCallback(text);
  return BODY_OPENS.test(text) && nextText !== undefined && /^\}[;,)]?$/.test(nextText);
}

/** `() => {}` passed as an argument or default is a deliberate no-op, not an unwritten function. */
function isNoOpCallback(text: string): boolean {
  return /\(\s*\)\s*=>\s*\{\s*\}\s*[,)]/.test(text) || /[=:]\s*\(\s*\)\s*=>\s*\{\s*\}/.test(text);
}

/**
 * The added lines of `git diff -U0` output, per file (new line numbers). Deleted files, binary
 * files and renames without changes add nothing.
 */
export function parseUnifiedDiff(diff: string): FileAdditions[] {
  const files: FileAdditions[] = [];
  let current: FileAdditions | undefined;
  let next = 0;
  for (const raw of diff.split('\n')) {
    if (raw.startsWith('diff --git ')) {
      current = undefined;
      continue;
    }
    if (raw.startsWith('+++ ')) {
      const target = raw.slice(4);
      current = target === '/dev/null' ? undefined : { file: unquote(target), added: [] };
      if (current !== undefined) files.push(current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (hunk !== null) {
      next = Number(hunk[1]);
      continue;
    }
    if (current === undefined) continue;
    if (raw.startsWith('+')) {
      current.added.push({ line: next, text: raw.slice(1) });
      next += 1;
    } else if (raw.startsWith(' ')) {
      next += 1;
    }
  }
  return files.filter((each) => each.added.length > 0);
}

/** `b/src/x.ts` → `src/x.ts`; git quotes names with unusual characters ("b/a\tb"). */
function unquote(target: string): string {
  const quoted = target.startsWith('"') && target.endsWith('"');
  const name = quoted ? (JSON.parse(target) as string) : target;
  return name.startsWith('b/') ? name.slice(2) : name;
}

/** Every line of a new (untracked) file counts as added. */
export function wholeFile(file: string, content: string): FileAdditions {
  const lines = content.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return { file, added: lines.map((text, index) => ({ line: index + 1, text })) };
}
