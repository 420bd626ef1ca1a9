import { join } from 'node:path';
import { absolutePath } from '../path-rules.js';
import type { Judge, SimpleCommand } from './analyze.js';
import { checkRead, checkWrite, shown, splitArgs, valueOf } from './args.js';
import type { CommandRule } from './command-rule.js';
import type { Arg } from './words.js';

/**
 * Options whose value is a folder or file written or read: package managers pointed at another
 * folder (`npm --prefix`, `pip --target`, `pip --user`), `patch -d`, build tools' output
 * folders (`--outDir`, for every command), and curl's form uploads (`-F f=@file`).
 */

const arg = (value: string): Arg => ({ dynamic: false, value, glob: false });

/** A folder a command writes into: checked as a file inside it (the folder itself may be the project root). */
function checkWriteInto(judge: Judge, command: SimpleCommand, dir: Arg): void {
  if (dir.dynamic) {
    checkWrite(judge, command, dir, 'write');
    return;
  }
  checkWrite(judge, command, arg(join(dir.value, '\u2026found')), 'write');
}

/** Long options naming an output folder or file, whatever the tool (tsc, esbuild, cargo, babel…). */
const OUTPUT_OPTIONS = new Set([
  '--outDir',
  '--outdir',
  '--out-dir',
  '--outFile',
  '--outfile',
  '--out-file',
  '--declarationDir',
  '--output-dir',
  '--output-path',
  '--target-dir',
  '--dest',
  '--destination',
]);

/** `npx tsc --outDir ../x`, `--outfile=../x.js`: every command's output options are writes. */
export function checkOutputOptions(command: SimpleCommand, judge: Judge): void {
  const { args } = command;
  for (let i = 0; i < args.length; i++) {
    const value = valueOf(args[i]);
    if (!value?.startsWith('--')) continue;
    if (value === '--') return;
    const eq = value.indexOf('=');
    const name = eq < 0 ? value : value.slice(0, eq);
    if (!OUTPUT_OPTIONS.has(name)) continue;
    const target = eq < 0 ? args[i + 1] : arg(value.slice(eq + 1));
    if (target !== undefined) checkWrite(judge, command, target, 'write');
  }
}

/** Package-manager subcommands that write into the package's folder. */
const INSTALLS = new Set([
  'install',
  'i',
  'add',
  'ci',
  'uninstall',
  'remove',
  'rm',
  'un',
  'update',
  'up',
  'upgrade',
  'link',
  'ln',
  'dedupe',
  'prune',
  'rebuild',
  'import',
]);

/** Options naming the package folder: npm `--prefix`/`-C`, pnpm `-C`/`--dir`, yarn `--cwd`. */
const PACKAGE_DIRS = ['--prefix', '-C', '--dir', '--cwd'];

/** `npm --prefix ../x install`: installs write into the named folder. */
const packageDirs: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, PACKAGE_DIRS);
  const sub = valueOf(split.operands[0]);
  if (sub === undefined || !INSTALLS.has(sub)) return;
  for (const option of PACKAGE_DIRS)
    for (const dir of split.values.get(option) ?? []) checkWriteInto(judge, command, dir);
};

const PIP_DIRS = [
  '-t',
  '--target',
  '--prefix',
  '--root',
  '--src',
  '-d',
  '-w',
  '--wheel-dir',
  '--log',
];

/**
 * pip: `--target`, `--prefix`, `--root` and friends name where packages go; `--user` puts them
 * in the home folder's site-packages, outside the project.
 */
const pip: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, [
    ...PIP_DIRS,
    '-r',
    '--requirement',
    '-c',
    '--constraint',
    '-i',
    '--index-url',
    '--extra-index-url',
    '-f',
    '--find-links',
    '--python',
  ]);
  const sub = valueOf(split.operands[0]);
  if (sub !== 'install' && sub !== 'download' && sub !== 'wheel' && sub !== 'uninstall') return;
  if (split.options.some((option) => valueOf(option) === '--user')) {
    judge.deny(
      'outside-project',
      `\`${shown(command)}\` installs into the user site-packages under the home folder, outside the project; use a virtual environment in the project`,
    );
  }
  for (const option of PIP_DIRS)
    for (const dir of split.values.get(option) ?? [])
      if (option === '--log') checkWrite(judge, command, dir, 'write');
      else checkWriteInto(judge, command, dir);
  for (const option of ['-r', '--requirement', '-c', '--constraint'])
    for (const file of split.values.get(option) ?? []) checkRead(judge, command, file);
};

const PATCH_VALUES = [
  '-p',
  '--strip',
  '-d',
  '--directory',
  '-i',
  '--input',
  '-o',
  '--output',
  '-r',
  '--reject-file',
  '-B',
  '--prefix',
  '-D',
  '--ifdef',
  '-F',
  '--fuzz',
  '-V',
  '--version-control',
  '-Y',
  '--basename-prefix',
  '-z',
  '--suffix',
];

/**
 * `patch [opts] [FILE [PATCHFILE]]`: FILE is changed, PATCHFILE read; `-d DIR` changes into
 * DIR first, so the files the patch names are changed there.
 */
const patch: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, PATCH_VALUES);
  const dirs = [...(split.values.get('-d') ?? []), ...(split.values.get('--directory') ?? [])];
  for (const dir of dirs) checkWriteInto(judge, command, dir);
  const dir = valueOf(dirs.at(-1));
  const base = dir === undefined ? command.cwd : absolutePath(dir, command.cwd);
  const inDir: SimpleCommand = { ...command, cwd: base };
  for (const option of ['-o', '--output', '-r', '--reject-file'])
    for (const file of split.values.get(option) ?? []) checkWrite(judge, inDir, file, 'write');
  for (const file of [...(split.values.get('-i') ?? []), ...(split.values.get('--input') ?? [])])
    checkRead(judge, inDir, file);
  const [target, patchFile] = split.operands;
  if (target !== undefined) {
    checkWrite(judge, inDir, target, 'write');
    checkRead(judge, inDir, target);
  }
  if (patchFile !== undefined) checkRead(judge, inDir, patchFile);
};

/**
 * curl's form fields: `-F name=@file` uploads a file, `-F name=<file` sends its text;
 * `--data-urlencode name@file` too. (`-d @file` and `-T file` are checked with the uploads.)
 */
const curlForms: CommandRule = (command, judge) => {
  const split = splitArgs(command.args, ['-F', '--form', '--data-urlencode', '--form-string']);
  for (const field of [...(split.values.get('-F') ?? []), ...(split.values.get('--form') ?? [])]) {
    const value = valueOf(field);
    const content = value === undefined ? undefined : /^[^=]*=([@<])(.*)$/s.exec(value)?.[2];
    if (content === undefined) continue;
    const file = content.startsWith('"')
      ? (/^"((?:[^"\\]|\\.)*)"/s.exec(content)?.[1] ?? content).replace(/\\(.)/g, '$1')
      : (content.split(';')[0] ?? '');
    checkRead(judge, command, arg(file));
  }
  for (const field of split.values.get('--data-urlencode') ?? []) {
    const value = valueOf(field) ?? '';
    const at = value.indexOf('@');
    const eq = value.indexOf('=');
    if (at > 0 && (eq < 0 || at < eq)) checkRead(judge, command, arg(value.slice(at + 1)));
  }
};

export const FILE_OPTION_RULES: Readonly<Record<string, CommandRule>> = {
  npm: packageDirs,
  pnpm: packageDirs,
  yarn: packageDirs,
  pip,
  patch,
  curl: curlForms,
};
