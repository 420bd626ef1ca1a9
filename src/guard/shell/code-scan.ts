import { join } from 'node:path';
import { absolutePath, readProblem, recordWrite, writeProblem } from '../path-rules.js';
import { globSensitiveRule } from '../sensitive.js';
import type { Judge, SimpleCommand } from './analyze.js';
import { shown } from './args.js';

/**
 * Inline code for other languages (`python3 -c`, `node -e`, `perl -e`, `ruby -e`, …) cannot be
 * parsed here, so it is scanned: a shell-out hides a command from the guard and is refused; a
 * recursive delete is refused (rm can be checked, rmtree cannot); a write or delete whose path
 * literal lies outside the project, or one aimed at the home folder, is refused; any literal
 * naming a secret is refused. Ordinary one-liners (`node -e "console.log(1)"`) pass.
 */

export type Language = 'shell' | 'python' | 'javascript' | 'perl' | 'ruby' | 'php' | 'other';

const SHELL_OUT: Readonly<Record<Exclude<Language, 'shell'>, RegExp>> = {
  python:
    /\b(os\s*\.\s*(system|popen|exec\w*|spawn\w*|posix_spawn\w*)|subprocess|pty\s*\.\s*spawn|commands\s*\.|__import__)\b/,
  javascript:
    /\b(child_process|execSync|execFileSync|spawnSync|process\s*\.\s*(binding|dlopen)|Bun\s*\.\s*(spawn\w*|\$)|Deno\s*\.\s*(run|Command))\b|\$`/,
  perl: /\b(system|exec|qx|fork)\b|`|\bopen\s*\(?[^;]*['"]\s*\||\|\s*['"]\s*\)/,
  ruby: /\b(system|exec|spawn|fork|IO\s*\.\s*popen|Open3|PTY)\b|`|%x/,
  php: /\b(shell_exec|system|exec|passthru|proc_open|popen|pcntl_exec)\b|`/,
  other:
    /\b(os\s*\.\s*execute|io\s*\.\s*popen|system|do shell script|Start-Process|Invoke-Expression|iex)\b/,
};

/**
 * Code that makes code, or names, at run time: `eval`, `exec`, `new Function`, importlib,
 * getattr, a require of a variable. What it will run cannot be read here, so the keyword scans
 * below would be blind to it (`getattr(os, 'sys' + 'tem')`).
 */
const DYNAMIC_CODE: Readonly<Record<Exclude<Language, 'shell'>, RegExp>> = {
  python:
    /\b(exec|eval|compile|getattr|__import__|globals|vars)\s*\(|\bimportlib\b|__builtins__|__dict__/,
  javascript:
    /\beval\s*\(|\bFunction\s*\(|\bnew\s+Function\b|\b(require|import)\s*\(\s*(?!process\.argv\[\d+\]\s*\))[^'"`\s)]|\bprocess\s*\.\s*mainModule\b|\bmodule\s*\.\s*constructor\b|['"`](node:)?vm['"`]/,
  perl: /\beval\b|\bdo\s+['"$]/,
  ruby: /\b(eval|instance_eval|class_eval|module_eval|send|public_send|const_get)\b/,
  php: /\b(eval|assert|create_function|call_user_func(_array)?)\s*\(/,
  other: /\b(loadstring|load|dofile|eval|Invoke-Expression|iex)\b/,
};

/** Changing directory: the relative paths after it are no longer where the guard looks. */
const CHANGES_DIRECTORY = /\b(os\s*\.\s*chdir|process\s*\.\s*chdir|Dir\s*\.\s*chdir|chdir)\s*\(?/;

/** Paths or text decoded at run time: what a write or delete then targets cannot be read. */
const DECODES =
  /\bfromCharCode\b|\bchr\s*\(|\bfromhex\b|\bBuffer\s*\.\s*from\b|\batob\b|b64decode|\bcodecs\b|\bunhexlify\b|\\x[0-9a-fA-F]{2}|\bpack\s*\(/;

const RECURSIVE_DELETE =
  /\b(rmtree|removedirs|rimraf|rm_rf|rm_r|remove_dir_all|remove_tree|Remove-Item)\b|\brm(Sync|dirSync)?\s*\([^)]*recursive/;

const WRITE_API =
  /\b(writeFile\w*|appendFile\w*|createWriteStream|copyFile\w*|cp(Sync)?|rename\w*|rm(Sync)?|unlink\w*|symlink\w*|link(Sync)?|mkdir\w*|chmod\w*|chown\w*|truncate\w*|write_text|write_bytes|makedirs|remove|replace|copy\w*|move|unlink|open\s*\([^)]*['"][wax]|File\s*\.\s*(write|open|delete)|IO\s*\.\s*write|FileUtils|file_put_contents|Set-Content|Out-File)\b|>\s*['"]|open\s*\(\s*\w+\s*,\s*['"][>+]/;

const HOME_REFERENCE =
  /\b(os\s*\.\s*homedir|homedir|expanduser|Path\s*\.\s*home|HOME|USERPROFILE)\b|['"`]~\//;

const STRING_LITERAL = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;

export function scanCode(
  language: Exclude<Language, 'shell'>,
  code: string,
  command: SimpleCommand,
  judge: Judge,
): void {
  const shellOut = SHELL_OUT[language].exec(code);
  if (shellOut !== null) {
    judge.deny(
      'interpreter-shell-out',
      `\`${shown(command)}\`: the inline code runs shell commands (${shellOut[0]}), which the guard cannot check; run the command directly`,
    );
    return;
  }
  const dynamic = DYNAMIC_CODE[language].exec(code);
  if (dynamic !== null) {
    judge.deny(
      'interpreter-dynamic-code',
      `\`${shown(command)}\`: the inline code builds code or names at run time (${dynamic[0].trim()}), which the guard cannot check; write it plainly`,
    );
    return;
  }
  const recursive = RECURSIVE_DELETE.exec(code);
  if (recursive !== null) {
    judge.deny(
      'interpreter-recursive-delete',
      `\`${shown(command)}\`: the inline code deletes recursively (${recursive[0]}); use rm, whose paths the guard can check`,
    );
    return;
  }
  const built = dynamicRead(code);
  if (built !== undefined) {
    const secret = secretNearby(command, judge);
    if (secret !== undefined) {
      judge.deny(
        'interpreter-dynamic-read',
        `\`${shown(command)}\`: the inline code reads a file whose name is built when it runs (${built}), and ${secret}; name the file with a plain literal or as an argument`,
      );
      return;
    }
  }
  const writes = WRITE_API.test(code);
  const blind = writes ? (CHANGES_DIRECTORY.exec(code) ?? DECODES.exec(code)) : null;
  if (blind !== null) {
    judge.deny(
      'interpreter-write-unknown',
      `\`${shown(command)}\`: the inline code writes or deletes after ${blind[0].trim()}, so where cannot be checked; use literal paths from the project root`,
    );
    return;
  }
  if (writes && HOME_REFERENCE.test(code)) {
    judge.deny(
      'interpreter-write-outside',
      `\`${shown(command)}\`: the inline code writes under the home directory, outside the project`,
    );
    return;
  }
  for (const match of code.matchAll(STRING_LITERAL)) {
    const literal = match[1] ?? match[2] ?? match[3] ?? '';
    if (!looksLikePath(literal)) continue;
    const value = literal.startsWith('~/') ? `${judge.policy.homeDir}${literal.slice(1)}` : literal;
    const path = absolutePath(value, command.cwd ?? judge.policy.projectRoot);
    if (path === undefined) continue;
    const read = readProblem(path, judge.policy);
    if (read !== undefined) {
      judge.deny(read.rule, `\`${shown(command)}\`: the inline code ${read.reason}`);
      return;
    }
    if (!writes) continue;
    recordWrite(judge.policy, path, command.name);
    const write = writeProblem(path, 'write', judge.policy);
    if (write !== undefined) {
      judge.deny(
        'interpreter-write-outside',
        `\`${shown(command)}\`: the inline code ${write.reason}`,
      );
      return;
    }
  }
}

function looksLikePath(literal: string): boolean {
  if (
    literal === '' ||
    literal.length > 4096 ||
    (/[\s<>|;]/.test(literal) && !literal.startsWith('/'))
  )
    return false;
  return (
    /^(\/|~\/|\.\.?\/|\.env)/.test(literal) ||
    /\.(pem|key)$|(^|\/)(id_rsa|id_ed25519|credentials|secrets)/.test(literal) ||
    literal.includes('/')
  );
}

/** Calls that read a file by name, with what follows the parenthesis. */
const READ_CALL =
  /\b(open|Path|read_text|read_bytes|readFile\w*|createReadStream|File\s*\.\s*(read|open|readlines|binread)|IO\s*\.\s*(read|readlines)|file_get_contents|fopen|file|readfile)\s*\(([^)]*)/g;

/** A first argument the guard can see: a plain literal, or a program argument (checked as a path). */
const KNOWN_ARGUMENT =
  /^\s*(('[^'\\+]*'|"[^"\\+]*")\s*(,|$)|(sys\s*\.\s*argv|process\s*\.\s*argv|ARGV|\$ARGV)\s*\[\s*\d+\s*\]\s*(,|$)|sys\s*\.\s*stdin\b|0\s*(,|$)|$)/;

/**
 * A file read whose name is built at run time (`open('.e'+'nv')`, `readFileSync(f)`,
 * `open(base64.b64decode(…))`): the call and its argument, or undefined.
 */
function dynamicRead(code: string): string | undefined {
  for (const match of code.matchAll(READ_CALL)) {
    const argument = match[4] ?? '';
    if (KNOWN_ARGUMENT.test(argument) || literalVariable(code, argument)) continue;
    return `${match[1] ?? ''}(${argument.trim()}`;
  }
  return undefined;
}

/**
 * `const f = "prd.json"; readFileSync(f)`: a variable assigned once, from a plain literal (which
 * the literal scan checks like any other), is as good as the literal.
 */
function literalVariable(code: string, argument: string): boolean {
  const name = /^\s*([A-Za-z_$][\w$]*)\s*(,|$)/.exec(argument)?.[1];
  if (name === undefined) return false;
  const escaped = name.replace(/\$/g, '\\$');
  const assignments = code.match(new RegExp(`(?<![\\w$.])${escaped}\\s*=(?!=)`, 'g')) ?? [];
  const plain = new RegExp(
    `(?<![\\w$.])${escaped}\\s*=\\s*('[^'\\\\+]*'|"[^"\\\\+]*")\\s*(;|,|\\n|$)`,
  );
  return assignments.length === 1 && plain.test(code);
}

/**
 * Refused only where there is a secret to find: the project or the working folder holds one
 * (like `cat $(…)` in commands.ts), so ordinary scripts in projects without secrets pass.
 */
function secretNearby(command: SimpleCommand, judge: Judge): string | undefined {
  const folders = new Set([judge.policy.projectRoot]);
  if (command.cwd !== undefined) folders.add(command.cwd);
  for (const folder of folders) {
    const rule =
      globSensitiveRule(join(folder, '*'), judge.policy) ??
      globSensitiveRule(join(folder, '.*'), judge.policy);
    if (rule !== undefined) return `${folder} holds a secret (${rule})`;
  }
  return undefined;
}
