import type { Judge, SimpleCommand } from './analyze.js';
import { checkRead, checkWrite, shown, splitArgs, valueOf } from './args.js';
import type { CommandRule } from './command-rule.js';
import type { Arg } from './words.js';

/**
 * Options of ordinary tools whose value is a command they run: rsync's remote shell, ssh's
 * remote command and ProxyCommand, man's pager, vim's ex commands, sqlite3's dot-commands. The
 * command is judged as shell code; what cannot be followed is refused.
 */

const shell = (command: SimpleCommand, judge: Judge, code: string | undefined, what: string) => {
  judge.shell(code, command.cwd, command.depth + 1, what);
};

/** `rsync -e CMD`, `--rsh=CMD`: the "remote shell" is any local command; `--rsync-path` runs there. */
const rsync: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, ['-e', '--rsh', '--rsync-path']);
  for (const option of ['-e', '--rsh', '--rsync-path'])
    for (const code of split.values.get(option) ?? [])
      shell(command, judge, valueOf(code), `rsync ${option}`);
};

/** ssh_config keys whose values are commands run on this machine (or, RemoteCommand, there). */
const SSH_COMMAND_KEYS = /^(proxycommand|localcommand|knownhostscommand|remotecommand)$/i;

/** `-o Key=Value` and `-o "Key Value"` of ssh, scp, sftp. */
function sshOptions(command: SimpleCommand, judge: Judge, values: readonly Arg[]): void {
  for (const arg of values) {
    const value = valueOf(arg);
    const option = value === undefined ? undefined : /^\s*(\w+)\s*[=\s]\s*(.*)$/s.exec(value);
    if (option === null || option?.[1] === undefined) continue;
    if (SSH_COMMAND_KEYS.test(option[1])) shell(command, judge, option[2], `ssh -o ${option[1]}`);
  }
}

/** ssh's options that take a value (one letter each). */
const SSH_VALUE_LETTERS = /[BbcDEeFIiJLlmOopQRSWw]/;

/**
 * `ssh [opts] HOST [opts] [COMMAND…]`: the words after the host are joined and run by the remote
 * user's shell in their home folder — on this machine for `localhost`, so judged as shell code.
 */
const ssh: CommandRule = (command, judge) => {
  const { args } = command;
  const options: Arg[] = [];
  // OpenSSH reads options on both sides of the host (`ssh host -t CMD`).
  const host = sshOptionsFrom(args, 0, options);
  const start = sshOptionsFrom(args, host + 1, options);
  sshOptions(command, judge, options);
  const words = args.slice(start);
  if (host >= args.length || words.length === 0) return;
  const parts = words.map((word) => valueOf(word));
  const code = parts.some((part) => part === undefined) ? undefined : parts.join(' ');
  judge.shell(code, judge.policy.homeDir, command.depth + 1, 'ssh');
};

/** Skips ssh options from `index`, collecting `-o` values; the index of the next other word. */
function sshOptionsFrom(args: readonly Arg[], from: number, options: Arg[]): number {
  let index = from;
  for (; index < args.length; index++) {
    const value = valueOf(args[index]);
    if (value === undefined || !value.startsWith('-') || value === '-') return index;
    if (value === '--') return index + 1;
    const letters = value.slice(1);
    const at = letters.search(SSH_VALUE_LETTERS);
    if (at < 0) continue;
    const inline = letters.slice(at + 1);
    const taken: Arg | undefined =
      inline !== '' ? { dynamic: false, value: inline, glob: false } : args[index + 1];
    if (inline === '') index += 1;
    if (letters[at] === 'o' && taken !== undefined) options.push(taken);
  }
  return index;
}

/** scp/sftp: `-o` as for ssh, `-S PROGRAM` replaces ssh itself, sftp's `-D` runs a server. */
const scpLike: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, ['-o', '-S', '-D', '-P', '-i', '-F', '-c', '-l', '-b']);
  sshOptions(command, judge, split.values.get('-o') ?? []);
  for (const program of split.values.get('-S') ?? [])
    shell(command, judge, valueOf(program), `${command.name} -S`);
  if (command.name === 'sftp')
    for (const program of split.values.get('-D') ?? [])
      shell(command, judge, valueOf(program), 'sftp -D');
};

/** `man -P PAGER`, `--pager=PAGER`, `-H BROWSER`: the pager or browser is a shell command. */
const man: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, ['-P', '--pager', '-H', '--html', '-M', '-L', '-S']);
  for (const option of ['-P', '--pager', '-H', '--html'])
    for (const code of split.values.get(option) ?? [])
      shell(command, judge, valueOf(code), `man ${option}`);
};

/**
 * vim/nvim/ex: `-c CMD`, `+CMD` and `--cmd CMD` are ex commands; ex mode (`-e`, `-es`, `ex`) also
 * reads them from stdin. A shell escape (`!cmd`, `r !cmd`, `w !cmd`) is judged; other ways to
 * run programs (`system()`, `:terminal`, other languages, `:execute`) are refused.
 */
const vim: CommandRule = (command, judge) => {
  const { args } = command;
  const ex: (string | undefined)[] = [];
  let exMode = command.name === 'ex';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = valueOf(arg);
    if (arg === undefined) break;
    if (value === undefined) {
      if (!arg.dynamic || !/^['"]?\+/.test(arg.text)) continue;
      ex.push(undefined);
    } else if (value === '-c' || value === '--cmd') {
      ex.push(valueOf(args[i + 1]));
      i += 1;
    } else if (value.startsWith('+') && !/^\+\d*$/.test(value)) ex.push(value.slice(1));
    else if (/^-[a-zA-Z]*[eE][a-zA-Z]*$/.test(value)) exMode = true;
  }
  if (exMode) ex.push(...exFromStdin(command, judge));
  for (const text of ex) judgeEx(command, judge, text);
};

/** Ex commands from stdin: a here-document's lines, or refused when piped in unseen. */
function exFromStdin(command: SimpleCommand, judge: Judge): (string | undefined)[] {
  const { stdin } = command;
  if (stdin?.kind === 'text')
    return stdin.text === undefined ? [undefined] : stdin.text.split('\n');
  if (stdin?.kind === 'file') {
    checkRead(judge, command, stdin.arg);
    judge.deny(
      'editor-shell',
      `\`${shown(command)}\` runs ex commands from a file the guard does not read; pass them with -c`,
    );
  } else if (command.piped) {
    judge.deny(
      'pipe-to-interpreter',
      `\`${shown(command)}\` runs ex commands arriving on stdin, which the guard cannot see; pass them with -c`,
    );
  }
  return [];
}

/** Modifiers and commands that run another ex command: `silent`, `:g/pat/`, `bufdo`, a range. */
const EX_PREFIX =
  /^(?:[%.$,0-9'<>+-]+\s*|(?:sil(?:e(?:nt?)?)?!?|uns(?:ilent)?|noa(?:utocmd)?|keep\w*|lockm(?:arks)?|vert(?:ical)?|bel(?:owright)?|abo(?:veleft)?|to(?:pleft)?|bo(?:tright)?|tab|conf(?:irm)?|hid(?:e)?|lefta(?:bove)?|rightb(?:elow)?|san(?:dbox)?|\d*verb(?:ose)?|windo|bufdo|argdo|tabdo|cdo|cfdo|ldo|lfdo|folddo(?:open|closed)?)\s+|(?:g(?:l(?:o(?:b(?:al?)?)?)?)?!?|v(?:g(?:l(?:o(?:b(?:al?)?)?)?)?)?)\s*([^\w\s|"]).*?\1)/s;

/** The ex command itself, without what only says where or how it runs. */
function exCore(part: string): string {
  let body = part.replace(/^[\s:]+/, '');
  for (let prefix = EX_PREFIX.exec(body); prefix !== null; prefix = EX_PREFIX.exec(body))
    body = body.slice(prefix[0].length).replace(/^[\s:]+/, '');
  return body;
}

/** Ex commands that run something other than a shell: refused outright. */
const EX_RUNS_CODE =
  /\b(system|systemlist|jobstart|termopen|libcall|libcallnr)\s*\(|^(ter(m(i(n(a(l)?)?)?)?)?|sh(e(l(l)?)?)?|exe(c(u(t(e)?)?)?)?|py(thon)?[3x]?(do|file)?|pyx(do|file)?|lua(do|file)?|perl(do)?|ruby(do|file)?|rub|tcl(do|file)?|mz(scheme|f(ile)?)?)\b/;

function judgeEx(command: SimpleCommand, judge: Judge, text: string | undefined): void {
  if (text === undefined) {
    judge.deny(
      'editor-shell',
      `\`${shown(command)}\`: an editor command known only when it runs; write it literally`,
    );
    return;
  }
  // `|` separates ex commands, except after `!`, which takes the rest of the line.
  for (const part of text.split('|')) {
    const body = exCore(part);
    const bang = /^(?:!|r(?:e(?:ad?)?)?\s*!|w(?:r(?:i(?:te?)?)?)?\s+!)(.*)$/s.exec(body);
    if (bang !== null) {
      shell(command, judge, text.slice(text.indexOf(part) + part.indexOf('!') + 1), 'vim !');
      return;
    }
    if (EX_RUNS_CODE.test(body) || /\bsystem(list)?\s*\(/.test(part)) {
      judge.deny(
        'editor-shell',
        `\`${shown(command)}\`: the editor command \`${body.trim()}\` runs programs the guard cannot check`,
      );
      return;
    }
  }
}

/**
 * sqlite3 DB [SQL…]: the database file is written (created, changed) unless `-readonly`;
 * dot-commands in the SQL or `-cmd` may run shell commands (`.shell`, `.system`, a `|cmd`
 * file name), write files (`.output`, `.once`, `.save`, `.backup`) or load code (`.load`).
 */
const sqlite3: CommandRule = (command, judge) => {
  const { args } = command;
  const scripts: (string | undefined)[] = [];
  const operands: Arg[] = [];
  let readonly = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = valueOf(arg);
    if (arg === undefined) break;
    if (value === undefined || !value.startsWith('-') || operands.length > 0) operands.push(arg);
    else if (value === '-readonly' || value === '--readonly') readonly = true;
    else if (value === '-cmd' || value === '--cmd') {
      scripts.push(valueOf(args[i + 1]));
      i += 1;
    } else if (value === '-init' || value === '--init') {
      const file = args[i + 1];
      if (file !== undefined) checkRead(judge, command, file);
      i += 1;
    } else if (SQLITE_VALUES.includes(value.replace(/^--/, '-'))) i += 1;
  }
  const [database, ...sql] = operands;
  const file = valueOf(database);
  if (database !== undefined && file !== ':memory:' && file !== '') {
    if (readonly) checkRead(judge, command, database);
    else checkWrite(judge, command, database, 'write');
  }
  scripts.push(...sql.map((arg) => valueOf(arg)));
  if (command.stdin?.kind === 'text') scripts.push(command.stdin.text);
  for (const script of scripts) judgeSql(command, judge, script);
};

const SQLITE_VALUES = [
  '-separator',
  '-newline',
  '-nullvalue',
  '-vfs',
  '-maxsize',
  '-mmap',
  '-heap',
  '-lookaside',
  '-pagecache',
];

function judgeSql(command: SimpleCommand, judge: Judge, script: string | undefined): void {
  if (script === undefined) return; // a dynamic query: the database file was checked
  for (const line of script.split('\n')) {
    const dot = /^\s*\.(\w+)\s*(.*)$/s.exec(line);
    if (dot !== null) judgeDotCommand(command, judge, dot[1] ?? '', (dot[2] ?? '').trim());
  }
  if (/\b(load_extension|edit)\s*\(/i.test(script)) {
    judge.deny(
      'sqlite-runs-code',
      `\`${shown(command)}\` loads code or starts an editor from SQL; the guard cannot check it`,
    );
  }
  // The CLI's file functions and ATTACH/VACUUM INTO name files read or written.
  const file = (text: string): Arg => ({ dynamic: false, value: text, glob: false });
  for (const [, name] of script.matchAll(/\breadfile\s*\(\s*'([^']*)'/gi))
    checkRead(judge, command, file(name ?? ''));
  for (const [, name] of script.matchAll(
    /\b(?:writefile\s*\(|attach\s+(?:database\s+)?|vacuum\s+(?:\w+\s+)?into\s+)\s*'([^']*)'/gi,
  ))
    if (name !== '' && name !== ':memory:') checkWrite(judge, command, file(name ?? ''), 'write');
}

function judgeDotCommand(command: SimpleCommand, judge: Judge, name: string, rest: string): void {
  const target = rest.replace(/^(-\w+\s+)*/, '').replace(/^(['"])(.*)\1$/s, '$2');
  if (name === 'shell' || name === 'system' || target.startsWith('|')) {
    shell(
      command,
      judge,
      name === 'shell' || name === 'system' ? rest : target.slice(1),
      `sqlite3 .${name}`,
    );
    return;
  }
  if (name === 'load') {
    judge.deny('sqlite-runs-code', `\`${shown(command)}\` loads a native extension into sqlite3`);
    return;
  }
  if (target === '') return;
  // `.backup ?DB? FILE` and `.restore ?DB? FILE` name the file last, the others first.
  const words = target.split(/\s+/);
  const last = name === 'backup' || name === 'save' || name === 'restore';
  const file: Arg = { dynamic: false, value: (last ? words.at(-1) : words[0]) ?? '', glob: false };
  if (['output', 'once', 'save', 'backup', 'open', 'log', 'excel'].includes(name))
    checkWrite(judge, command, file, 'write');
  if (['read', 'import', 'restore'].includes(name)) checkRead(judge, command, file);
}

export const CODE_OPTION_RULES: Readonly<Record<string, CommandRule>> = {
  rsync,
  ssh,
  scp: scpLike,
  sftp: scpLike,
  man,
  vim,
  vi: vim,
  nvim: vim,
  gvim: vim,
  view: vim,
  vimdiff: vim,
  ex: vim,
  sqlite3,
};
