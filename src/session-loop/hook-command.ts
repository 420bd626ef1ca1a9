import { access, constants, realpath } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The command line written into Claude Code settings to run `ralph stop-hook`. Claude Code runs
 * hooks through a shell with ITS environment, where a project-local install
 * (node_modules/.bin) or an npx run puts no `ralph` on PATH. So:
 *  - when `ralph` on PATH is this very installation, write `ralph stop-hook`: it survives
 *    upgrades and node version switches and reads well in a shared settings file;
 *  - otherwise write the absolute `<node> <…/dist/cli/bin.cjs> stop-hook` of this installation,
 *    which works wherever the file stays (and warn when that is npx's cache, which gets pruned).
 * `ralph setup --hook-command` overrides both.
 */

export interface StopHookCommand {
  /** What runs the CLI (`ralph`, or `'/usr/bin/node' '/…/bin.cjs'`); `stop-hook` and `loop …` follow. */
  prefix: string;
  form: 'path' | 'absolute' | 'custom';
  warnings: string[];
}

export const THIS_BIN = fileURLToPath(new URL('../cli/bin.cjs', import.meta.url));

export async function chooseStopHookCommand(options: {
  env: NodeJS.ProcessEnv;
  execPath: string;
  binPath?: string;
}): Promise<StopHookCommand> {
  const binPath = options.binPath ?? THIS_BIN;
  const ours = await realpath(binPath).catch(() => binPath);
  const onPath = await whichRalph(options.env.PATH ?? '');
  if (onPath !== undefined && (await realpath(onPath).catch(() => onPath)) === ours) {
    return { prefix: 'ralph', form: 'path', warnings: [] };
  }
  const warnings = ours.includes('/_npx/')
    ? [
        "ralph runs from npx's cache, which npm prunes: the hook would break then. Install ralph (npm install -g ralph or as a devDependency) and run setup again.",
      ]
    : [];
  return {
    prefix: `${shellQuote(options.execPath)} ${shellQuote(ours)}`,
    form: 'absolute',
    warnings,
  };
}

async function whichRalph(path: string): Promise<string | undefined> {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'ralph');
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** POSIX shell quoting, only when needed, so common paths stay readable. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Whether a hook command is ralph's Stop hook in any of the forms above (for idempotent setup). */
export function isRalphStopHook(command: string): boolean {
  return /\bstop-hook\s*$/.test(command) && /ralph|bin\.c?js/.test(command);
}
