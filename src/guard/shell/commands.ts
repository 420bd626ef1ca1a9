import { join } from 'node:path';
import { globSensitiveRule } from '../sensitive.js';
import type { Judge, SimpleCommand } from './analyze.js';
import { checkReadsOfAll, shown, valueOf } from './args.js';
import type { CommandRule } from './command-rule.js';
import { CODE_OPTION_RULES } from './code-options.js';
import { FILE_RULES } from './file-commands.js';
import { checkOutputOptions, FILE_OPTION_RULES } from './file-options.js';
import { judgeInterpreter, interpreterOf } from './interpreters.js';
import { judgePackageScripts } from './package-scripts.js';
import { judgeProgramFile, unseenWriterOf } from './script-files.js';
import { judgeReach } from './reach.js';
import { SPECIAL_RULES } from './special-commands.js';
import { TREE_RULES } from './tree-reads.js';
import { unwrap } from './wrappers.js';
import type { Arg } from './words.js';

/**
 * The judgement of one simple command. In order: the user's patterns and command lists from
 * the config, then the built-in rules for the command's name (privilege escalation and system
 * administration denied; wrappers, shells and interpreters looked into; file commands checked
 * path by path), and for every command, whatever it is, no argument may name a secret.
 */

/** Becoming someone else, root above all: never in an unattended loop. */
const PRIVILEGE = new Set([
  'sudo',
  'sudoedit',
  'doas',
  'su',
  'pkexec',
  'run0',
  'chroot',
  'nsenter',
  'unshare',
  'capsh',
  'setpriv',
]);

/** Changes to the machine rather than the project. */
const SYSTEM = new Set([
  'mkfs',
  'mke2fs',
  'fdisk',
  'sfdisk',
  'gdisk',
  'parted',
  'wipefs',
  'dmsetup',
  'cryptsetup',
  'losetup',
  'mknod',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'init',
  'telinit',
  'kexec',
  'systemctl',
  'service',
  'launchctl',
  'mount',
  'umount',
  'swapon',
  'swapoff',
  'iptables',
  'ip6tables',
  'nft',
  'ufw',
  'useradd',
  'userdel',
  'usermod',
  'groupadd',
  'groupdel',
  'passwd',
  'chpasswd',
  'visudo',
  'crontab',
  'at',
  'batch',
  'insmod',
  'rmmod',
  'modprobe',
  'sysctl',
  'chattr',
]);

/** Commands whose arguments are text, not files: no secret-name check on them. */
const TEXT_ONLY = new Set(['echo', 'printf', 'true', 'false', ':', 'test', '[', 'ls', 'stat']);

export function judgeCommand(command: SimpleCommand, judge: Judge): void {
  judgeByName(command, judge);
  // Noted after the command itself: it affects the scripts run after it, not its own code.
  judge.policy.unseenWriter ??= unseenWriterOf(command);
}

function judgeByName(command: SimpleCommand, judge: Judge): void {
  const { policy } = judge;
  const line = commandLine(command);
  if (matches(policy.allowPatterns, line)) return;
  const denied = policy.denyPatterns.find((pattern) => matchesPattern(pattern, line));
  if (denied !== undefined) {
    judge.deny(
      'guard.denyPatterns',
      `\`${shown(command)}\` matches the denied pattern "${denied}"`,
    );
    return;
  }
  const asked = policy.askPatterns.find((pattern) => matchesPattern(pattern, line));
  if (asked !== undefined)
    judge.ask(
      'guard.askPatterns',
      `\`${shown(command)}\` matches "${asked}", which needs a person`,
    );
  const { name } = command;
  if (policy.denyCommands.includes(name)) {
    judge.deny('guard.denyCommands', `\`${name}\` is in guard.denyCommands`);
    return;
  }
  if (policy.askCommands.includes(name))
    judge.ask('guard.askCommands', `\`${name}\` is in guard.askCommands, which need a person`);
  const userAllowed = policy.allowCommands.includes(name);
  if (!userAllowed && PRIVILEGE.has(name)) {
    judge.deny(
      'privilege-escalation',
      `\`${shown(command)}\`: ${name} runs commands as another user; the agent works as itself`,
    );
    return;
  }
  if (!userAllowed && (SYSTEM.has(name) || name.startsWith('mkfs.'))) {
    judge.deny(
      'system-command',
      `\`${shown(command)}\`: ${name} changes the machine, not the project`,
    );
    return;
  }
  if (judgeReach(command, judge)) return;
  const inner = unwrap(command, judge);
  if (inner !== undefined) {
    if (inner !== 'handled') judge.command(inner);
    return;
  }
  const interpreter = interpreterOf(name);
  if (interpreter !== undefined) {
    // `bun run build`, `bun dev`, `node --run build`: package scripts.
    if (name === 'bun' || name === 'node') judgePackageScripts(command, judge);
    judgeInterpreter(command, interpreter, judge);
    return;
  }
  const rule = FILE_RULES[name] ?? SPECIAL_RULES[name];
  if (rule !== undefined) rule(command, judge);
  optionRule(command)?.(command, judge);
  if (!TEXT_ONLY.has(name) && !ARGS_ARE_TEXT.has(name)) {
    checkReadsOfAll(judge, command, command.args);
    checkOutputOptions(command, judge);
  }
  if (FILE_READERS.has(name)) checkDynamicReads(command, judge);
  judgeProgramFile(command, judge);
}

/**
 * Rules for options that run commands, write elsewhere or read whole trees, on top of the rules
 * above (`rsync -e`, `npm --prefix`, `grep -r`). `pip3.12` is pip; `uv pip …` is pip too.
 */
const OPTION_RULES: Readonly<Record<string, CommandRule>> = {
  ...TREE_RULES,
  ...CODE_OPTION_RULES,
  ...FILE_OPTION_RULES,
};

function optionRule(command: SimpleCommand): CommandRule | undefined {
  const { name } = command;
  const pip = OPTION_RULES.pip;
  if (/^pip[0-9.]*$/.test(name)) return pip;
  if (name === 'uv' && valueOf(command.args[0]) === 'pip' && pip !== undefined)
    return (uv, judge) => {
      pip({ ...uv, args: uv.args.slice(1) }, judge);
    };
  return OPTION_RULES[name];
}

/** Commands that print or copy the files they are given. */
const FILE_READERS = new Set([
  'cat',
  'tac',
  'less',
  'more',
  'head',
  'tail',
  'cp',
  'base64',
  'base32',
  'xxd',
  'od',
  'hexdump',
  'hd',
  'strings',
  'nl',
  'diff',
  'cmp',
  'rev',
  'fold',
  'zcat',
  'bat',
  'view',
]);

/**
 * `cat $(echo .env)`, `F=.env; cat $F`: a file named only at run time may be a secret. Like a
 * glob, it is refused when the project (or the working folder) holds a sensitive file.
 */
function checkDynamicReads(command: SimpleCommand, judge: Judge): void {
  // A process substitution (`diff <(sort a) <(sort b)`) is a pipe; its commands are judged.
  let dynamic: string | undefined;
  for (const arg of command.args)
    if (arg.dynamic && !/^[<>]\(/.test(arg.text)) dynamic ??= arg.text;
  if (dynamic === undefined) return;
  const folders = new Set([judge.policy.projectRoot]);
  if (command.cwd !== undefined) folders.add(command.cwd);
  for (const folder of folders) {
    const rule =
      globSensitiveRule(join(folder, '*'), judge.policy) ??
      globSensitiveRule(join(folder, '.*'), judge.policy);
    if (rule !== undefined) {
      judge.deny(
        'sensitive-file',
        `\`${shown(command)}\` reads \`${dynamic}\`, known only when it runs, and ${folder} holds a secret (${rule}); name the file literally`,
      );
      return;
    }
  }
}

/**
 * Commands whose rule above already checked what their arguments read (and whose arguments
 * name files left out: `tar --exclude .env`, `zip -r x.zip . -x .env`).
 */
const ARGS_ARE_TEXT = new Set(['git', 'tar', 'zip']);

/** `name arg1 arg2`, with `…` for words known only at run time: what patterns match against. */
export function commandLine(command: SimpleCommand): string {
  return [command.name, ...command.args.map((arg: Arg) => valueOf(arg) ?? '…')].join(' ');
}

function matches(patterns: readonly string[], line: string): boolean {
  return patterns.some((pattern) => matchesPattern(pattern, line));
}

/** `*` matches anything (spaces too); everything else literally. */
export function matchesPattern(pattern: string, line: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(line);
}
