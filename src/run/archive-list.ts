import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readTaskListFile } from '../plan/read.js';
import { findTaskListFile, loopPaths } from '../state/paths.js';

/** One archive folder (`archive/<timestamp>-<feature>/`) as `ralph archive --list` shows it. */
export interface ArchiveEntry {
  name: string;
  path: string;
  /** The folder name's stamp as ISO 8601, when it has one of ours (or ralph-hybrid's). */
  archivedAt: string | undefined;
  stories: number | undefined;
  passing: number | undefined;
}

// ralph's 20260123T125023Z-feature and ralph-hybrid's 20260123-125023-feature.
const STAMP = /^(\d{4})(\d{2})(\d{2})(?:T|-)(\d{2})(\d{2})(\d{2})Z?-/;

/** The loop's archives, oldest first; an unreadable task list in one is shown as unknown. */
export async function listArchives(dir: string): Promise<ArchiveEntry[]> {
  const root = loopPaths(dir).archiveDir;
  const entries = await readdir(root, { withFileTypes: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  const result: ArchiveEntry[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(root, entry.name);
    const stamp = STAMP.exec(entry.name);
    let stories: number | undefined;
    let passing: number | undefined;
    const found = await findTaskListFile(path);
    if (found !== undefined) {
      const document = await readTaskListFile(found.path).catch(() => undefined);
      stories = document?.taskList.stories.length;
      passing = document?.taskList.stories.filter((story) => story.passes).length;
    }
    result.push({
      name: entry.name,
      path,
      archivedAt:
        stamp === null
          ? undefined
          : `${stamp[1]}-${stamp[2]}-${stamp[3]}T${stamp[4]}:${stamp[5]}:${stamp[6]}Z`,
      stories,
      passing,
    });
  }
  return result.sort((a, b) => a.name.localeCompare(b.name));
}
