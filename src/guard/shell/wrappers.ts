import { resolve } from 'node:path';
import type { Judge, SimpleCommand } from './analyze.js';
import { checkRead, checkWrite, shown, splitArgs, valueOf } from './args.js';
import type { Arg } from './words.js';

/**
 * Commands that run another command: the inner one is judged as if written alone (`nohup rm
 * -rf /` is `rm -rf /`). `xargs` adds arguments that only exist at run time; `find -exec` is in
 * file-commands.ts; `watch` and `env -S` take shell code.
 */

interface WrapperSpec {
  /** Options that take a value (`-n 10`). */
  valueOptions: readonly string[];
  /** Operands before the command (`timeout 10 cmd`: one). */
  skipOperands?: number;
  /** Options after which there is no command at all (`command -v rm` only looks it up). */
  noCommand?: readonly string[];
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  nice: { valueOptions: ['-n', '--adjustment'] },
  nohup: { valueOptions: [] },
  timeout: { valueOptions: ['-s', '--signal', '-k', '--kill-after'], skipOperands: 1 },
  time: { valueOptions: ['-f', '--format', '-o', '--output'] },
  command: { valueOptions: [], noCommand: ['-v', '-V'] },
  builtin: { valueOptions: [] },
  exec: { valueOptions: ['-a'] },
  stdbuf: { valueOptions: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { valueOptions: ['-c', '-n', '--class', '--classdata'], noCommand: ['-p', '--pid'] },
  chrt: { valueOptions: [], skipOperands: 1, noCommand: ['-p', '--pid'] },
  taskset: { valueOptions: [], skipOperands: 1, noCommand: ['-p', '--pid'] },
  setsid: { valueOptions: [] },
  unbuffer: { valueOptions: [] },
  caffeinate: { valueOptions: ['-t', '-w'] },
  flock: { valueOptions: ['-w', '--timeout', '-E', '--conflict-exit-code'], skipOperands: 1 },
  strace: { valueOptions: ['-o', '-e', '-p', '-s', '-u', '-E'] },
  ltrace: { valueOptions: ['-o', '-e', '-p', '-s', '-u'] },
  valgrind: { valueOptions: [] },
  busybox: { valueOptions: [] },
  npx: { valueOptions: ['-p', '--package', '-c', '--call'] },
  bunx: { valueOptions: ['-p', '--package'] },
  pnpx: { valueOptions: [] },
};

/** The command a wrapper runs, 'handled' when judged here already, undefined for non-wrappers. */
export function unwrap(
  command: SimpleCommand,
  judge: Judge,
): SimpleCommand | 'handled' | undefined {
  const { name, args } = command;
  if (name === 'env') return unwrapEnv(command, judge);
  if (name === 'xargs') return unwrapXargs(command, judge);
  if (name === 'watch') return shellOfArgs(command, judge, ['-n', '--interval', '-d']);
  if (name === 'script') return unwrapScript(command, judge);
  if (name === 'parallel' || name === 'sem') return unwrapParallel(command, judge);
  if ((name === 'npm' || name === 'pnpm' || name === 'yarn') && isExec(args))
    return innerOf(
      command,
      args.slice(args[1] !== undefined && valueOf(args[1]) === '--' ? 2 : 1),
      judge,
    );
  const spec = WRAPPERS[name];
  if (spec === undefined) return undefined;
  if (name === 'npx' || name === 'pnpx' || name === 'bunx') {
    const call = splitArgs(args, spec.valueOptions).values.get('-c') ?? [];
    for (const code of call) judge.shell(valueOf(code), command.cwd, command.depth + 1, 'npx -c');
  }
  if (name === 'time' || name === 'strace' || name === 'ltrace') {
    const out = splitArgs(args, spec.valueOptions);
    for (const file of [...(out.values.get('-o') ?? []), ...(out.values.get('--output') ?? [])])
      checkWrite(judge, command, file, 'write');
  }
  let index = 0;
  while (index < args.length) {
    const value = valueOf(args[index]);
    if (value === undefined || !value.startsWith('-') || value === '-') break;
    if (value === '--') {
      index += 1;
      break;
    }
    if (spec.noCommand?.includes(value) === true) return 'handled';
    index += spec.valueOptions.includes(value) ? 2 : 1;
  }
  return innerOf(command, args.slice(index + (spec.skipOperands ?? 0)), judge);
}

/** `npm exec`, `pnpm dlx`, `yarn dlx`, `pnpm exec`: the package binary with its arguments. */
function isExec(args: readonly Arg[]): boolean {
  const first = valueOf(args[0]);
  return first === 'exec' || first === 'x' || first === 'dlx';
}

function innerOf(command: SimpleCommand, rest: Arg[], judge: Judge): SimpleCommand | 'handled' {
  const [first, ...args] = rest;
  if (first === undefined) return 'handled';
  if (first.dynamic) {
    judge.deny(
      'dynamic-command',
      `\`${shown(command)}\` runs \`${first.text}\`, known only when it runs; write the command literally`,
    );
    return 'handled';
  }
  // npx's package specs: `rimraf@5` runs rimraf.
  const path = first.value.replace(/(?<=.)@[^/]*$/, '');
  return { ...command, path, name: path.slice(path.lastIndexOf('/') + 1), args };
}

function unwrapEnv(command: SimpleCommand, judge: Judge): SimpleCommand | 'handled' {
  let cwd = command.cwd;
  const { args } = command;
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index];
    if (arg === undefined) break;
    if (arg.dynamic) break;
    const value = arg.value;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value);
    if (assignment !== null) {
      judge.assignment(
        assignment[1] ?? '',
        [{ ...arg, value: assignment[2] ?? '' }],
        cwd,
        command.depth,
      );
      continue;
    }
    if (!value.startsWith('-') || value === '-') break;
    if (value === '--') {
      index += 1;
      break;
    }
    const split = /^(-S|--split-string)(?:=(.*))?$/s.exec(value);
    if (split !== null) {
      const code = split[2] ?? valueOf(args[index + 1]);
      const rest = args.slice(split[2] === undefined ? index + 2 : index + 1);
      const tail = rest.map((each) => valueOf(each) ?? '"$UNKNOWN"').join(' ');
      judge.shell(
        code === undefined ? undefined : `${code} ${tail}`,
        cwd,
        command.depth + 1,
        'env -S',
      );
      return 'handled';
    }
    const chdir = /^(-C|--chdir)(?:=(.*))?$/s.exec(value);
    if (chdir !== null) {
      const dir = chdir[2] ?? valueOf(args[index + 1]);
      cwd = dir === undefined || cwd === undefined ? undefined : resolve(cwd, dir);
      if (chdir[2] === undefined) index += 1;
      continue;
    }
    if (value === '-u' || value === '--unset') index += 1;
  }
  if (index >= args.length) {
    judge.deny(
      'environment',
      `\`${shown(command)}\` prints the environment, which holds the credentials of the agent's own CLI; print the one variable you need`,
    );
    return 'handled';
  }
  const inner = innerOf(command, args.slice(index), judge);
  return inner === 'handled' ? inner : { ...inner, cwd };
}

const XARGS_VALUES = ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter'];

/** `xargs CMD ARGS`: CMD gets more arguments from stdin, unknown to the guard. */
function unwrapXargs(command: SimpleCommand, judge: Judge): SimpleCommand | 'handled' {
  const { args } = command;
  let index = 0;
  for (; index < args.length; index++) {
    const value = valueOf(args[index]);
    if (!value?.startsWith('-')) break;
    if (value === '--') {
      index += 1;
      break;
    }
    if (value === '-a' || value === '--arg-file') {
      const file = args[index + 1];
      if (file !== undefined) checkRead(judge, command, file);
    }
    if (XARGS_VALUES.includes(value)) index += 1;
  }
  const inner = innerOf(command, args.slice(index), judge);
  if (inner === 'handled') return inner;
  const fromStdin: Arg = { dynamic: true, text: '(arguments read from stdin by xargs)' };
  return { ...inner, args: [...inner.args, fromStdin], piped: false };
}

/** `watch [opts] CMD ARGS`: joined by spaces and run by `sh -c`. */
function shellOfArgs(command: SimpleCommand, judge: Judge, valueOptions: string[]): 'handled' {
  const split = splitArgs(command.args, valueOptions);
  const words = split.operands.map((arg) => valueOf(arg));
  const code = words.some((word) => word === undefined) ? undefined : words.join(' ');
  judge.shell(code, command.cwd, command.depth + 1, command.name);
  return 'handled';
}

/** `script -qc CODE [file]`: CODE runs in a shell; the file is the typescript it writes. */
function unwrapScript(command: SimpleCommand, judge: Judge): 'handled' {
  const { args } = command;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) break;
    if (arg.dynamic) continue;
    const value = arg.value;
    const long = /^--command(?:=(.*))?$/s.exec(value);
    if (long !== null) {
      const code = long[1] ?? valueOf(args[i + 1]);
      judge.shell(code, command.cwd, command.depth + 1, 'script -c');
      if (long[1] === undefined) i += 1;
      continue;
    }
    const cluster = /^-([A-Za-z]*c)(.*)$/s.exec(value);
    if (cluster !== null && !value.startsWith('--')) {
      const code = cluster[2] !== '' ? cluster[2] : valueOf(args[i + 1]);
      judge.shell(code, command.cwd, command.depth + 1, 'script -c');
      if (cluster[2] === '') i += 1;
    }
  }
  return 'handled';
}

const PARALLEL_VALUES = [
  '-j',
  '--jobs',
  '-S',
  '--sshlogin',
  '-N',
  '-n',
  '-L',
  '-a',
  '--arg-file',
  '-d',
  '--delimiter',
  '-E',
  '-I',
  '--results',
  '--joblog',
  '--tmpdir',
  '--delay',
  '--timeout',
  '--colsep',
  '-C',
];

/**
 * `parallel CMD ::: ARGS`: CMD is shell code run once per input; inputs after `:::` are the
 * words written, otherwise (stdin, `::::` files, `-a`) they are unknown.
 */
function unwrapParallel(command: SimpleCommand, judge: Judge): 'handled' {
  const { args } = command;
  let index = 0;
  let fromFile = false;
  for (; index < args.length; index++) {
    const value = valueOf(args[index]);
    if (value === undefined || !value.startsWith('-') || value.startsWith(':::')) break;
    if (value === '--') {
      index += 1;
      break;
    }
    if (value === '-a' || value === '--arg-file') {
      fromFile = true;
      const file = args[index + 1];
      if (file !== undefined) checkRead(judge, command, file);
    }
    if (PARALLEL_VALUES.includes(value)) index += 1;
  }
  const rest = args.slice(index);
  const separator = rest.findIndex((arg) => (valueOf(arg) ?? '').startsWith(':::'));
  const words = separator < 0 ? rest : rest.slice(0, separator);
  const inputs: (string | undefined)[] = [];
  if (separator < 0 || fromFile) inputs.push(undefined);
  let literal = true;
  for (const arg of separator < 0 ? [] : rest.slice(separator)) {
    const value = valueOf(arg);
    if (value !== undefined && /^::::?\+?$/.test(value)) {
      literal = value.startsWith(':::') && value.length === 3 + (value.endsWith('+') ? 1 : 0);
      if (!literal) inputs.push(undefined);
      continue;
    }
    if (!literal) {
      checkRead(judge, command, arg);
      continue;
    }
    inputs.push(value);
  }
  const quote = (text: string | undefined) =>
    text === undefined ? '"$UNKNOWN"' : `'${text.replace(/'/g, `'\\''`)}'`;
  const parts = words.map((arg) => valueOf(arg));
  const template = parts.some((part) => part === undefined) ? undefined : parts.join(' ');
  if (template === undefined || template.trim() === '') {
    if (template === undefined)
      judge.shell(undefined, command.cwd, command.depth + 1, command.name);
    // No command: each input line is itself a command, unknown unless written.
    for (const input of inputs) judge.shell(input, command.cwd, command.depth + 1, command.name);
    return 'handled';
  }
  for (const input of inputs.length > 0 ? inputs : [undefined]) {
    const code = /\{[^}]*\}/.test(template)
      ? template.replace(/\{[^}]*\}/g, quote(input))
      : `${template} ${quote(input)}`;
    judge.shell(code, command.cwd, command.depth + 1, command.name);
  }
  return 'handled';
}
