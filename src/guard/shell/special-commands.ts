import type { Judge, SimpleCommand } from './analyze.js';
import {
  checkRead,
  checkReadsOfAll,
  checkWrite,
  hasFlag,
  shown,
  splitArgs,
  valueOf,
} from './args.js';
import type { CommandRule } from './command-rule.js';
import { git } from './git.js';
import { judgePackageScripts } from './package-scripts.js';
import { judgeShellScriptArg } from './script-files.js';
import type { Arg } from './words.js';

/**
 * Rules for commands that are neither wrappers nor plain file commands: code runners (`eval`,
 * `source`, `trap`), git and docker settings that run commands, network tools under the
 * network policy, `kill` of everything, global package installs.
 */

const code = (command: SimpleCommand, judge: Judge, args: readonly Arg[], what: string) => {
  const words = args.map((arg) => valueOf(arg));
  const text = words.some((word) => word === undefined) ? undefined : words.join(' ');
  judge.shell(text, command.cwd, command.depth + 1, what);
};

const evalRule: CommandRule = (command, judge) => {
  code(command, judge, command.args, 'eval');
};

const source: CommandRule = (command, judge) => {
  const [file] = command.args;
  if (file === undefined) return;
  if (file.dynamic) {
    judge.deny(
      'dynamic-code',
      `\`${shown(command)}\` runs \`${file.text}\`, known only when it runs; source a literal file`,
    );
    return;
  }
  if (STDIN_FILES.has(file.value)) {
    // `source /dev/stdin <<< CODE`: the code is the here-string; through a pipe, unknown.
    const { stdin } = command;
    if (stdin?.kind === 'text' && stdin.text !== undefined) {
      judge.shell(stdin.text, command.cwd, command.depth + 1, command.name);
      return;
    }
    if (stdin?.kind === 'file' && !stdin.arg.dynamic) {
      checkRead(judge, command, stdin.arg);
      return;
    }
    judge.deny(
      'pipe-to-interpreter',
      `\`${shown(command)}\` runs whatever arrives on stdin, which the guard cannot see; source a literal file`,
    );
    return;
  }
  checkRead(judge, command, file);
  judgeShellScriptArg(command, file, judge);
};

const STDIN_FILES = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

/** `trap 'CODE' EXIT`: the code runs later, in this shell. */
const trap: CommandRule = (command, judge) => {
  const split = splitArgs(command.args);
  const [handler, ...signals] = split.operands;
  if (handler !== undefined && signals.length > 0) code(command, judge, [handler], 'trap');
};

const alias: CommandRule = (command, judge) => {
  for (const arg of command.args) {
    const value = valueOf(arg);
    const body = value === undefined ? undefined : /^[^=]+=(.*)$/s.exec(value)?.[1];
    if (arg.dynamic || body !== undefined)
      judge.shell(body, command.cwd, command.depth + 1, 'alias');
  }
};

/** `hash -p /bin/rm ls` makes `ls` run rm. */
const hash: CommandRule = (command, judge) => {
  if (hasFlag(splitArgs(command.args), 'p'))
    judge.deny('command-alias', `\`${shown(command)}\` makes one command name run another program`);
};

/** `kill -9 -1` and `kill 1` end every process of the user, or init. */
const kill: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, ['-s', '-n']);
  const pids = split.options.filter((option) => !option.dynamic && /^-1$/.test(option.value));
  const targets = [...pids, ...split.operands].map((arg) => valueOf(arg));
  // `kill -1` alone means signal 1; a `-1` after the signal option is the pid -1.
  const signalGiven = split.options.length > 1 || split.values.size > 0;
  if (
    targets.includes('1') ||
    (signalGiven && targets.includes('-1')) ||
    split.operands.some((arg) => valueOf(arg) === '-1')
  ) {
    judge.deny('kill-everything', `\`${shown(command)}\` signals every process (or init)`);
  }
};

/** docker/podman: --privileged, host namespaces and mounts of folders outside the project. */
const container: CommandRule = (command, judge) => {
  const sub = valueOf(command.args[0]);
  if (sub !== 'run' && sub !== 'create' && sub !== 'exec') return;
  const split = splitArgs(command.args.slice(1), [
    '-v',
    '--volume',
    '--mount',
    '-e',
    '--env',
    '--name',
    '-w',
    '--workdir',
    '-p',
    '--publish',
    '--network',
    '--net',
    '-u',
    '--user',
    '--entrypoint',
  ]);
  if (
    split.options.some(
      (option) =>
        !option.dynamic &&
        /^--(privileged|pid=host|ipc=host|userns=host|cap-add=(ALL|SYS_ADMIN))/.test(option.value),
    )
  ) {
    judge.deny('container-escape', `\`${shown(command)}\` gives the container the host's powers`);
    return;
  }
  const mounts = [...(split.values.get('-v') ?? []), ...(split.values.get('--volume') ?? [])];
  for (const mount of mounts) {
    const value = valueOf(mount);
    if (value === undefined) {
      checkWrite(judge, command, mount, 'write');
      continue;
    }
    const sourcePath = value.split(':')[0] ?? '';
    if (sourcePath.startsWith('/') || sourcePath.startsWith('.') || sourcePath.startsWith('~')) {
      checkWrite(judge, command, { dynamic: false, value: sourcePath, glob: false }, 'write');
    }
  }
  for (const mount of split.values.get('--mount') ?? []) {
    const value = valueOf(mount);
    const sourcePath =
      value === undefined ? undefined : /(?:^|,)(?:source|src)=([^,]+)/.exec(value)?.[1];
    if (value === undefined) checkWrite(judge, command, mount, 'write');
    else if (sourcePath !== undefined)
      checkWrite(judge, command, { dynamic: false, value: sourcePath, glob: false }, 'write');
  }
};

/** Under `guard.network`; what they send or save is checked like any read or write. */
const network =
  (outputs: string[], uploads: string[], valueOptions: string[] = []): CommandRule =>
  (command, judge) => {
    const { policy } = judge;
    if (policy.network === 'deny') {
      judge.deny('network', `\`${shown(command)}\`: network access is off (guard.network: deny)`);
      return;
    }
    if (policy.network === 'ask') judge.ask('network', `\`${shown(command)}\` uses the network`);
    const split = splitArgs(command.args, [...outputs, ...uploads, ...valueOptions]);
    for (const option of outputs)
      for (const file of split.values.get(option) ?? []) checkWrite(judge, command, file, 'write');
    for (const option of uploads)
      for (const file of split.values.get(option) ?? []) checkReadsOfAll(judge, command, [file]);
  };

const CURL_VALUES = [
  '-H',
  '--header',
  '-X',
  '--request',
  '-A',
  '--user-agent',
  '-u',
  '--user',
  '-e',
  '--referer',
  '-m',
  '--max-time',
  '--connect-timeout',
  '-w',
  '--write-out',
  '-x',
  '--proxy',
  '--retry',
  '-b',
  '--cookie',
];

/** nc/socat can hand a shell to the other end. */
const netcat: CommandRule = (command, judge) => {
  const text = command.args.map((arg) => valueOf(arg) ?? '').join(' ');
  if (/(^|\s)-[a-zA-Z]*[ec](\s|$)|EXEC:|SYSTEM:/i.test(text)) {
    judge.deny('remote-shell', `\`${shown(command)}\` connects a shell to the network`);
    return;
  }
  network([], [])(command, judge);
};

/** Installs into the global prefix write outside the project. */
const packageManager: CommandRule = (command, judge) => {
  const values = command.args.map((arg) => valueOf(arg));
  const sub = values[0];
  const installing =
    sub === 'install' ||
    sub === 'i' ||
    sub === 'add' ||
    sub === 'link' ||
    sub === 'uninstall' ||
    sub === 'remove' ||
    sub === 'rm';
  const global = values.some(
    (value) => value === '-g' || value === '--global' || value === 'global',
  );
  if ((installing && global) || (command.name === 'yarn' && sub === 'global')) {
    judge.deny(
      'outside-project',
      `\`${shown(command)}\` installs globally, outside the project; install into the project`,
    );
  }
  judgePackageScripts(command, judge);
};

export const SPECIAL_RULES: Readonly<Record<string, CommandRule>> = {
  eval: evalRule,
  source,
  '.': source,
  trap,
  alias,
  hash,
  kill,
  git,
  docker: container,
  podman: container,
  nerdctl: container,
  curl: network(
    [
      '-o',
      '--output',
      '--output-dir',
      '-c',
      '--cookie-jar',
      '-D',
      '--dump-header',
      '--trace',
      '--trace-ascii',
    ],
    [
      '-T',
      '--upload-file',
      '-d',
      '--data',
      '--data-binary',
      '--data-raw',
      '--data-urlencode',
      '-F',
      '--form',
      '-K',
      '--config',
      '--json',
    ],
    CURL_VALUES,
  ),
  wget: network(
    [
      '-O',
      '--output-document',
      '-P',
      '--directory-prefix',
      '-o',
      '--output-file',
      '-a',
      '--append-output',
    ],
    ['--post-file', '--body-file', '-i', '--input-file'],
    ['-U', '--user-agent', '--header', '-t', '--tries', '-T', '--timeout'],
  ),
  ssh: network(
    [],
    ['-i', '-F'],
    [
      '-p',
      '-o',
      '-l',
      '-L',
      '-R',
      '-D',
      '-J',
      '-W',
      '-b',
      '-c',
      '-E',
      '-e',
      '-m',
      '-O',
      '-Q',
      '-S',
      '-w',
    ],
  ),
  sftp: network([], ['-i', '-F', '-b']),
  ftp: network([], []),
  telnet: network([], []),
  http: network(['-o', '--output', '-d', '--download'], []),
  https: network(['-o', '--output', '-d', '--download'], []),
  aria2c: network(['-d', '--dir', '-o', '--out'], []),
  nc: netcat,
  ncat: netcat,
  netcat,
  socat: netcat,
  npm: packageManager,
  pnpm: packageManager,
  yarn: packageManager,
};
