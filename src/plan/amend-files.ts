import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { readLock } from '../state/lock.js';
import { loopPaths } from '../state/paths.js';
import { RalphError } from '../util/errors.js';
import { openForAppend } from '../util/no-follow.js';
import type { AmendFiles, AmendOutcome } from './amend.js';
import { parseTaskList, readTaskListFile } from './read.js';
import { parseSpec } from './spec.js';
import { checkSpecSync, type SyncFinding } from './spec-sync.js';

/**
 * The file side of `ralph amend` and `ralph sync`: refuse while a run holds the loop (its agent
 * writes prd.json and progress.txt, and two writers lose one's change), read the files, check
 * that the amendment leaves them consistent, and write each atomically, only if nobody changed
 * it since it was read.
 */

export interface PlanPaths {
  dir: string;
  spec: string;
  prd: string;
  progress: string;
}

export function planPaths(dir: string): PlanPaths {
  const paths = loopPaths(dir);
  return { dir: paths.dir, spec: paths.spec, prd: paths.prd, progress: paths.progress };
}

export async function refuseWhileRunning(dir: string, what: string): Promise<void> {
  const lock = await readLock(dir);
  if (lock?.alive !== true) return;
  const holder = lock.holder;
  const who = holder === undefined ? '' : ` (pid ${String(holder.pid)}: ${holder.command})`;
  throw new RalphError('LOCKED', `a run holds ${dir}${who}; ralph will not ${what} under it`, {
    hint: 'its agent writes prd.json and progress.txt too: stop the run (`ralph stop`) or wait for it, then try again',
  });
}

async function readText(path: string, what: string, hint: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new RalphError('IO', `cannot read ${what} ${path}`, {
      location: { file: path },
      hint,
      cause: error,
    });
  }
}

export async function loadAmendFiles(
  paths: PlanPaths,
  now: Date,
  command: string,
): Promise<AmendFiles> {
  const specText = await readText(
    paths.spec,
    'spec.md',
    'amendments are recorded in spec.md; `ralph sync --from prd` writes one from prd.json',
  );
  const prd = await readTaskListFile(paths.prd);
  const progressText = await readFile(paths.progress, 'utf8').catch(() => '');
  return { specText, specFile: paths.spec, prd, progressText, now, command };
}

/** Errors of the sync check (spec.md ↔ prd.json) for the given texts. */
export function syncErrors(specText: string, specFile: string, prdText: string, prdFile: string) {
  const spec = parseSpec(specText, specFile);
  const doc = parseTaskList(prdText, prdFile);
  const errors = checkSpecSync(spec, doc.taskList, { taskListFile: basename(prdFile) });
  return errors.filter((f: SyncFinding) => f.severity === 'error');
}

/**
 * Refuses an outcome that would leave the pair failing `ralph validate` where it passed before:
 * an amendment must never be the reason a loop cannot start.
 */
export function assertStillInSync(files: AmendFiles, specText: string, prdText: string): void {
  const before = syncErrors(files.specText, files.specFile, files.prd.text, files.prd.file);
  const after = syncErrors(specText, files.specFile, prdText, files.prd.file);
  const known = new Set(before.map((f) => f.message));
  const fresh = after.filter((f) => !known.has(f.message));
  if (fresh.length === 0) return;
  // ralph's own bug, not the person's: reported as an internal error, nothing written.
  throw new Error(
    `the change would leave spec.md and prd.json out of sync (${fresh.map((f) => f.message).join('; ')}); nothing was written`,
  );
}

async function unchangedSince(path: string, text: string): Promise<void> {
  const now = await readFile(path, 'utf8').catch(() => '');
  if (now === text) return;
  throw new RalphError('IO', `${path} changed while ralph was amending it`, {
    location: { file: path },
    hint: 'nothing was written; run the command again',
  });
}

export async function writeAmendment(
  paths: PlanPaths,
  files: AmendFiles,
  outcome: AmendOutcome,
): Promise<void> {
  assertStillInSync(files, outcome.specText, outcome.prdText);
  await unchangedSince(paths.spec, files.specText);
  await unchangedSince(paths.prd, files.prd.text);
  await writeFileAtomic(paths.spec, outcome.specText);
  await writeFileAtomic(paths.prd, outcome.prdText);
  await appendProgress(paths.progress, files.progressText, outcome.progressEntry);
}

/** Appends an entry on a line of its own (progress.txt is append-only: never rewritten). */
export async function appendProgress(path: string, before: string, entry: string): Promise<void> {
  const lead = before === '' || before.endsWith('\n') ? '' : '\n';
  // The previous entry's closing `---` also opens this one: no doubled separator.
  const text = before.trimEnd().endsWith('---') ? entry.replace(/^---\n/, '') : entry;
  const handle = await openForAppend(path);
  try {
    await handle.write(`${lead}${before === '' ? '' : '\n'}${text}`);
  } finally {
    await handle.close();
  }
}
