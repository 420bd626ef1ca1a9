import { cp, mkdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ownFolder } from '../util/no-follow.js';
import { loopPaths } from './paths.js';

/**
 * Copies a finished feature's plan and history into `archive/<timestamp>-<feature>/`. It copies
 * rather than moves: the loop directory stays as it was, so `ralph status` still reads it and a
 * person decides when to clean up.
 */
export async function archiveLoop(
  dir: string,
  options: { feature: string; now: Date },
): Promise<string> {
  const paths = loopPaths(dir);
  const stamp = options.now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const base = join(paths.archiveDir, `${stamp}-${options.feature.replace(/[^\w.-]+/g, '-')}`);
  // A link the agent left in place of archive/ would send the copies elsewhere.
  await ownFolder(paths.archiveDir);
  const target = await createUnique(base);
  for (const source of [
    paths.prd,
    paths.featureList,
    paths.progress,
    paths.spec,
    paths.specsDir,
    paths.memories,
  ]) {
    if ((await stat(source).catch(() => undefined)) === undefined) continue;
    await cp(source, join(target, basename(source)), {
      recursive: true,
      errorOnExist: true,
      force: false,
    });
  }
  return target;
}

/** `base`, or `base-2`, `base-3`, … when an archive of the same second exists: never mixed. */
async function createUnique(base: string): Promise<string> {
  for (let suffix = 1; ; suffix += 1) {
    const candidate = suffix === 1 ? base : `${base}-${suffix}`;
    try {
      await mkdir(candidate);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
