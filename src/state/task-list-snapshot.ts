import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import * as z from 'zod';
import { ownFolder, readFileNoFollow } from '../util/no-follow.js';
import { withStorageErrors } from '../util/storage-errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { loopPaths } from './paths.js';

/**
 * The task list as it was when an attempt's agent started, on disk (logs/task-list-snapshot.json)
 * and not only in memory: if ralph is killed while the agent rewrites the task list in place,
 * the next run finds a torn file and this copy to restore it from (core/task-list-recovery.ts).
 * Written before every agent start, removed once the attempt's task list is settled; one that
 * is still there means that ralph died mid-attempt.
 */

const snapshotSchema = z.object({
  version: z.literal(1),
  /** The task list's file name in the loop directory (prd.json or feature_list.json). */
  file: z.string(),
  iteration: z.number().int().positive(),
  attempt: z.number().int().positive(),
  takenAt: z.string(),
  text: z.string(),
});

export type TaskListSnapshot = z.infer<typeof snapshotSchema>;

export async function writeTaskListSnapshot(
  loopDir: string,
  snapshot: Omit<TaskListSnapshot, 'version'>,
): Promise<void> {
  const paths = loopPaths(loopDir);
  await withStorageErrors(paths.logsDir, () => ownFolder(paths.logsDir));
  await writeFileAtomic(
    paths.taskListSnapshot,
    `${JSON.stringify({ version: 1, ...snapshot, file: basename(snapshot.file) })}\n`,
  );
}

/** The snapshot a dead run left; undefined when there is none or it cannot be used. */
export async function readTaskListSnapshot(loopDir: string): Promise<TaskListSnapshot | undefined> {
  const text = await readFileNoFollow(loopPaths(loopDir).taskListSnapshot).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = snapshotSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Torn itself (it is written atomically, so only by hand): there is nothing to restore from.
    return undefined;
  }
}

export async function removeTaskListSnapshot(loopDir: string): Promise<void> {
  await rm(loopPaths(loopDir).taskListSnapshot, { force: true });
}
