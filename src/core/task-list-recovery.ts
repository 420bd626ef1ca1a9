import { basename } from 'node:path';
import { parseTaskList, type TaskListDocument } from '../plan/read.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { readTaskListSnapshot, removeTaskListSnapshot } from '../state/task-list-snapshot.js';
import { isUnsafeFileError, readFileNoFollow } from '../util/no-follow.js';
import { checkTaskListChange, replacedTaskList } from './task-list-check.js';

export interface RecoveredTaskList {
  /** The iteration whose agent was running when the earlier run died. */
  iteration: number;
  problems: string[];
  kept: string[];
}

/**
 * At the start of a run: an earlier run that died mid-attempt (killed, power loss) left its
 * task-list snapshot behind. A task list that is now torn or invalid — the agent was rewriting it
 * in place when the kill came — is restored from that snapshot, with the agent's passes and notes
 * kept where they can still be read; a task list that reads fine is left as it is (the person may
 * have fixed it meanwhile). Either way the snapshot has done its job and goes. Without a snapshot
 * nothing is touched: a broken task list is then the person's edit, reported, never rewritten.
 */
export async function recoverTaskList(
  loopDir: string,
  taskListFile: string,
): Promise<RecoveredTaskList | undefined> {
  const snapshot = await readTaskListSnapshot(loopDir);
  if (snapshot === undefined) return undefined;
  const before = snapshotDocument(snapshot.text, taskListFile, snapshot.file);
  let recovered: RecoveredTaskList | undefined;
  if (before !== undefined) {
    const text = await readFileNoFollow(taskListFile).catch((error: unknown) =>
      isUnsafeFileError(error) ? { unsafe: error.what } : '',
    );
    const check =
      typeof text === 'string' ? unreadable(before, text) : replacedTaskList(before, text.unsafe);
    if (check !== undefined && !check.ok) {
      await writeFileAtomic(taskListFile, check.restoredText);
      recovered = { iteration: snapshot.iteration, problems: check.problems, kept: check.kept };
    }
  }
  await removeTaskListSnapshot(loopDir);
  return recovered;
}

function snapshotDocument(
  text: string,
  taskListFile: string,
  name: string,
): TaskListDocument | undefined {
  if (name !== basename(taskListFile)) return undefined;
  try {
    return parseTaskList(text, taskListFile);
  } catch {
    return undefined;
  }
}

/** The check of checkTaskListChange, for a task list that does not read; undefined when it does. */
function unreadable(before: TaskListDocument, text: string) {
  try {
    parseTaskList(text, before.file);
    return undefined;
  } catch {
    return checkTaskListChange(before, text);
  }
}
