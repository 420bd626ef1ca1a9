import type { Judge, SimpleCommand } from './analyze.js';
import { checkRead, checkWrite, shown, splitArgs, valueOf } from './args.js';
import { scanCode, type Language } from './code-scan.js';
import { judgeShellScriptArg } from './script-files.js';

/**
 * Shells and language interpreters: code they are handed inline (`bash -c`, `python3 -c`,
 * `node -e`, a here-document) is judged — shell code by parsing it again, other languages by
 * scanning for shell-outs, recursive deletes and writes outside the project. Code that arrives
 * through a pipe (`curl … | sh`, `base64 -d | bash`) cannot be seen and is refused; a shell
 * script file is read and judged (script-files.ts), a script in another language runs like any
 * program.
 */

interface InterpreterSpec {
  language: Language;
  /** Options whose value is the program text. */
  codeOptions: readonly string[];
  /** Options that take some other value. */
  valueOptions: readonly string[];
  /** Options after which no script or stdin program follows (`python3 -m venv`). */
  moduleOptions?: readonly string[];
}

const SHELL: InterpreterSpec = {
  language: 'shell',
  codeOptions: ['-c'],
  valueOptions: ['-o', '+o', '-O', '+O', '--rcfile', '--init-file'],
};

const SPECS: Readonly<Record<string, InterpreterSpec>> = {
  python: {
    language: 'python',
    codeOptions: ['-c'],
    valueOptions: ['-W', '-X', '-Q'],
    moduleOptions: ['-m'],
  },
  node: {
    language: 'javascript',
    codeOptions: ['-e', '--eval', '-p', '--print'],
    valueOptions: ['-r', '--require', '--import', '--loader', '--input-type', '-C', '--conditions'],
  },
  bun: { language: 'javascript', codeOptions: ['-e', '--eval', '-p', '--print'], valueOptions: [] },
  deno: { language: 'javascript', codeOptions: [], valueOptions: [] },
  perl: {
    language: 'perl',
    codeOptions: ['-e', '-E'],
    valueOptions: ['-I', '-M', '-m'],
  },
  ruby: { language: 'ruby', codeOptions: ['-e'], valueOptions: ['-I', '-r'] },
  php: { language: 'php', codeOptions: ['-r'], valueOptions: ['-d', '-c'] },
  lua: { language: 'other', codeOptions: ['-e'], valueOptions: ['-l'] },
  Rscript: { language: 'other', codeOptions: ['-e'], valueOptions: [] },
  osascript: { language: 'other', codeOptions: ['-e'], valueOptions: ['-l'] },
  pwsh: { language: 'other', codeOptions: ['-c', '-Command', '-command'], valueOptions: [] },
};

const SHELL_NAMES = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'fish',
  'tcsh',
  'csh',
]);
const AWK_NAMES = new Set(['awk', 'gawk', 'mawk', 'nawk']);

export type Interpreter = { kind: 'spec'; spec: InterpreterSpec } | { kind: 'awk' };

export function interpreterOf(name: string): Interpreter | undefined {
  if (SHELL_NAMES.has(name)) return { kind: 'spec', spec: SHELL };
  if (AWK_NAMES.has(name)) return { kind: 'awk' };
  const base = /^python[0-9.]*$/.test(name)
    ? 'python'
    : name === 'nodejs'
      ? 'node'
      : name === 'powershell'
        ? 'pwsh'
        : name;
  const spec = SPECS[base];
  return spec === undefined ? undefined : { kind: 'spec', spec };
}

export function judgeInterpreter(command: SimpleCommand, interpreter: Interpreter, judge: Judge) {
  if (interpreter.kind === 'awk') {
    judgeAwk(command, judge);
    return;
  }
  const { spec } = interpreter;
  const { args } = command;
  const codes: (string | undefined)[] = [];
  let script: (typeof args)[number] | undefined;
  let noProgram = false;
  let inPlace = false;
  // Where the program's own arguments begin (after the code, a script or `--`).
  let rest = args.length;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) break;
    const value = valueOf(arg);
    if (value === undefined || !/^[-+]./.test(value)) {
      script = arg;
      rest = i;
      break;
    }
    if (value === '--') {
      script = args[i + 1];
      rest = i + 1;
      break;
    }
    // perl -i / -pi, ruby -i: the files named after the code are rewritten in place.
    if ((spec.language === 'perl' || spec.language === 'ruby') && /^-[a-zA-Z]*i/.test(value))
      inPlace = true;
    const long = /^(--[^=]+)=(.*)$/s.exec(value);
    const option = long?.[1] ?? value;
    if (spec.codeOptions.includes(option)) {
      codes.push(long?.[2] ?? valueOf(args[i + 1]));
      if (long === null) i += 1;
      if (spec.language === 'shell') {
        rest = i + 1; // `bash -c CODE arg0 args…`
        break;
      }
      continue;
    }
    if (spec.moduleOptions?.includes(option) === true) {
      noProgram = true;
      break;
    }
    if (spec.valueOptions.includes(option)) {
      if (option === '--rcfile' || option === '--init-file') {
        const file = args[i + 1];
        if (file !== undefined) checkRead(judge, command, file);
      }
      if (long === null) i += 1;
      continue;
    }
    // A cluster such as `bash -ec CODE` or `python3 -Bc CODE`.
    const cluster = /^-([A-Za-z]+)$/.exec(value)?.[1];
    const codeFlag = spec.codeOptions.find(
      (flag) => /^-[a-zA-Z]$/.test(flag) && cluster?.includes(flag[1] ?? ''),
    );
    if (cluster !== undefined && codeFlag !== undefined && cluster.endsWith(codeFlag[1] ?? '')) {
      codes.push(valueOf(args[i + 1]));
      i += 1;
      if (spec.language === 'shell') {
        rest = i + 1;
        break;
      }
    }
  }
  if (command.name === 'deno' && valueOf(args[0]) === 'eval') codes.push(valueOf(args[1]));
  if (codes.length > 0) {
    for (const code of codes) runCode(command, spec.language, code, judge);
    // The code's arguments (`python3 -c '…open(sys.argv[1])…' .env`) are files as far as the
    // guard can tell: read, or rewritten by perl -i.
    for (const arg of args.slice(rest)) {
      if (valueOf(arg) === '--') continue;
      if (inPlace) checkWrite(judge, command, arg, 'write');
      else checkRead(judge, command, arg);
    }
    return;
  }
  if (noProgram || (command.name === 'deno' && script !== undefined)) return;
  if (script !== undefined && valueOf(script) !== '-' && valueOf(script) !== '/dev/stdin') {
    if (script.dynamic) {
      judge.deny(
        'dynamic-code',
        `\`${shown(command)}\` runs \`${script.text}\`, known only when it runs; run a script file by its literal path`,
      );
      return;
    }
    checkRead(judge, command, script);
    if (spec.language === 'shell') judgeShellScriptArg(command, script, judge);
    return;
  }
  judgeStdinProgram(command, spec.language, judge);
}

/** No program argument: the interpreter runs whatever arrives on stdin. */
function judgeStdinProgram(command: SimpleCommand, language: Language, judge: Judge): void {
  const { stdin } = command;
  if (stdin?.kind === 'text') {
    runCode(command, language, stdin.text, judge);
    return;
  }
  if (stdin?.kind === 'file') {
    if (stdin.arg.dynamic) {
      judge.deny(
        'pipe-to-interpreter',
        `\`${shown(command)}\` runs whatever \`${stdin.arg.text}\` delivers (like \`curl … | sh\`); save it to a file, read it, then run the file`,
      );
      return;
    }
    checkRead(judge, command, stdin.arg);
    // `bash < x.sh`, `sh -s < x.sh`: the file is the program.
    if (language === 'shell') judgeShellScriptArg(command, stdin.arg, judge, true);
    return;
  }
  if (command.piped) {
    judge.deny(
      'pipe-to-interpreter',
      `\`${shown(command)}\` runs whatever the pipe delivers (like \`curl … | sh\` or \`base64 -d | bash\`); save it to a file, read it, then run the file`,
    );
  }
}

function runCode(
  command: SimpleCommand,
  language: Language,
  code: string | undefined,
  judge: Judge,
): void {
  if (code === undefined) {
    judge.deny(
      'dynamic-code',
      `\`${shown(command)}\` runs code that is only known when it runs (a variable or \`$(…)\`); write the code literally`,
    );
    return;
  }
  if (language === 'shell') judge.shell(code, command.cwd, command.depth + 1, command.name);
  else scanCode(language, code, command, judge);
}

/** awk programs can run commands: `system(…)`, `print | "sh"`, `"cmd" | getline`. */
function judgeAwk(command: SimpleCommand, judge: Judge): void {
  const split = splitArgs(command.args, [
    '-f',
    '-v',
    '-F',
    '--file',
    '--assign',
    '--field-separator',
  ]);
  const files = [...(split.values.get('-f') ?? []), ...(split.values.get('--file') ?? [])];
  for (const file of files) checkRead(judge, command, file);
  const [program, ...inputs] = files.length > 0 ? [undefined, ...split.operands] : split.operands;
  if (program !== undefined) {
    const code = valueOf(program);
    if (code === undefined) {
      runCode(command, 'other', undefined, judge);
      return;
    }
    if (/\bsystem\s*\(|\|\s*getline|\|\s*"|\|&/.test(code)) {
      judge.deny(
        'interpreter-shell-out',
        `\`${shown(command)}\`: the awk program runs shell commands, which the guard cannot check`,
      );
      return;
    }
    if (/>>?\s*"/.test(code))
      scanCode('other', code.replace(/>>?\s*"/g, 'writeFile("'), command, judge);
  }
  for (const input of inputs) if (input !== undefined) checkRead(judge, command, input);
}
