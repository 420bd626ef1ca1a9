import { readdirSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { absolutePath } from '../path-rules.js';
import { realPath } from '../policy.js';
import { globToRegExp, isWithin } from '../sensitive.js';
import type { Judge, SimpleCommand } from './analyze.js';
import type { TreeFilter } from './tree-walk.js';
import type { Arg } from './words.js';

/**
 * Deletes that reach ralph's, git's and Claude's control files by pattern rather than by name:
 * `rm -rf .g*` (the shell expands it to .git), `find . -delete` (everything under the root,
 * .git and .ralph included). The pattern is matched against what is really there.
 */

/** Entries looked at per folder: enough for any control folder, bounded for a huge one. */
const MAX_ENTRIES = 200_000;

/**
 * `rm -rf .g*`: the names the glob matches in its (literal) folder, each checked as a delete.
 * Returns the first problem's reason, or undefined.
 */
export function globDeleteProblem(pattern: string, judge: Judge): string | undefined {
  const folder = dirname(pattern);
  if (/[*?[]/.test(folder)) return undefined;
  const regex = globToRegExp(basename(pattern), true);
  const real = realPath(folder);
  for (const protectedPath of judge.policy.protectedPaths) {
    if (!isWithin(protectedPath, real) || protectedPath === real) continue;
    const top = relative(real, protectedPath).split(sep)[0] ?? '';
    if (regex.test(top)) return `matches ${join(real, top)}, which holds ${protectedPath}`;
  }
  return undefined;
}

/** `find ROOT … -delete`: refused when the tests before it may match a protected path under ROOT. */
export function checkProtectedUnder(
  judge: Judge,
  command: SimpleCommand,
  root: Arg,
  filter: TreeFilter,
): void {
  const shown = command.text.length > 120 ? `${command.text.slice(0, 117)}...` : command.text;
  if (root.dynamic) return; // checkWrite refuses it
  const path = absolutePath(root.value, command.cwd);
  if (path === undefined) return;
  const real = realPath(path);
  const prefix = root.value.replace(/\/+$/, '');
  for (const protectedPath of judge.policy.protectedPaths) {
    if (!isWithin(protectedPath, real) || protectedPath === real) continue;
    const parts = relative(real, protectedPath).split(sep);
    const samples = parts.map((part, index) => ({
      name: part,
      relative: parts.slice(0, index + 1).join('/'),
    }));
    for (const entry of entriesOf(protectedPath))
      samples.push({ name: entry, relative: `${parts.join('/')}/${entry}` });
    const hit = samples.find((sample) => filter.skipsFile?.(sample.name, sample.relative) !== true);
    if (hit !== undefined) {
      judge.deny(
        'protected-path',
        `\`${shown}\` may delete ${join(prefix, hit.relative)}: ralph and git control files cannot be changed by the agent; narrow it with -name`,
      );
      return;
    }
  }
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
}
