import { randomBytes } from 'node:crypto';
import { lstat, stat, unlink } from 'node:fs/promises';
import { writeFileAtomic } from '../state/atomic-write.js';
import { RalphError } from '../util/errors.js';
import type { SessionLoopEntry } from './decide.js';
import { journalEntry, journalHeader } from './journal.js';
import { LOOP_ID_PATTERN, sessionLoopPaths } from './paths.js';
import { normalisePromise, promiseProblem } from './promise.js';
import { checkPrompt } from './prompt-check.js';
import { serialiseSessionLoopFile } from './state-file.js';
import { applyWrites, readSessionLoopEntries, withLoopLock } from './store.js';

/** `ralph loop start | list | cancel`, as functions of the project folder and the time. */

export interface StartOptions {
  projectDir: string;
  prompt: string;
  maxIterations: number;
  completionPromise: string | undefined;
  now: Date;
  /** Chosen in advance by the wizard, which names the journal inside the prompt. */
  id?: string;
}

export interface StartedSessionLoop {
  id: string;
  statePath: string;
  journalPath: string;
  completionPromise: string | null;
  warnings: string[];
}

export async function startSessionLoop(options: StartOptions): Promise<StartedSessionLoop> {
  const promise =
    options.completionPromise === undefined ? null : normalisePromise(options.completionPromise);
  const problem = promise === null ? undefined : promiseProblem(promise);
  if (problem !== undefined) throw new RalphError('USAGE', problem);
  if (!Number.isInteger(options.maxIterations) || options.maxIterations < 0)
    throw new RalphError('USAGE', '--max-iterations must be a whole number ≥ 0 (0 = no limit)');
  const check = checkPrompt(options.prompt, promise);
  if (check.errors.length > 0) {
    throw new RalphError('USAGE', `cannot store this prompt: ${check.errors.join('; ')}`);
  }
  const paths = sessionLoopPaths(options.projectDir);
  const startedAt = options.now.toISOString();
  return withLoopLock(options.projectDir, 'ralph loop start', async () => {
    const id = options.id ?? (await freshId(paths.state));
    if (!LOOP_ID_PATTERN.test(id)) throw new RalphError('USAGE', `invalid loop id ${id}`);
    if (await exists(paths.state(id)))
      throw new RalphError('ALREADY_EXISTS', `loop ${id} already exists`);
    const state = {
      loop_id: id,
      session_id: '',
      active: true,
      iteration: 1,
      max_iterations: options.maxIterations,
      completion_promise: promise,
      started_at: startedAt,
    };
    await writeFileAtomic(
      paths.state(id),
      serialiseSessionLoopFile({ state, body: options.prompt }),
    );
    await writeFileAtomic(paths.journal(id), journalHeader(id, startedAt, options.prompt));
    return {
      id,
      statePath: paths.state(id),
      journalPath: paths.journal(id),
      completionPromise: promise,
      warnings: check.warnings,
    };
  });
}

export function newLoopId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  // 256 % 36 leaves a slight bias toward the first letters: harmless for an id.
  return [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

async function freshId(statePath: (id: string) => string): Promise<string> {
  for (;;) {
    const id = newLoopId();
    if (!(await exists(statePath(id)))) return id;
  }
}

export type SessionLoopStatus =
  'ACTIVE' | 'UNCLAIMED' | 'ORPHANED' | 'INACTIVE' | 'CORRUPT' | 'REFUSED';

export interface SessionLoopSummary {
  id: string;
  status: SessionLoopStatus;
  sessionId: string | null;
  iteration: number | null;
  maxIterations: number | null;
  completionPromise: string | null;
  startedAt: string | null;
  lastActivityAt: string | null;
  file: string;
  journal: string;
  problem: string | null;
}

/**
 * Every loop with its status. ACTIVE: claimed, and its state file or its session's transcript
 * changed within `orphanedAfterMinutes`. UNCLAIMED: waiting for the first stop of a session,
 * started within that age. ORPHANED: either of those, silent for longer: its session is gone or
 * stuck, and no other session will take it over (that was the hijack bug): cancel it.
 */
export async function listSessionLoops(options: {
  projectDir: string;
  now: Date;
  orphanedAfterMinutes: number;
}): Promise<SessionLoopSummary[]> {
  const paths = sessionLoopPaths(options.projectDir);
  const entries = await readSessionLoopEntries(options.projectDir);
  const summaries: SessionLoopSummary[] = [];
  for (const entry of entries) {
    const base = { id: entry.id, file: entry.path, journal: paths.journal(entry.id) };
    if (entry.kind !== 'loop') {
      summaries.push({
        ...base,
        ...EMPTY,
        status: entry.kind === 'symlink' ? 'REFUSED' : 'CORRUPT',
        problem: entry.kind === 'symlink' ? 'a symbolic link (refused)' : entry.reason,
      });
      continue;
    }
    const { state } = entry.file;
    const activity = await lastActivity(entry);
    const silent = options.now.getTime() - activity > options.orphanedAfterMinutes * 60_000;
    const status: SessionLoopStatus = !state.active
      ? 'INACTIVE'
      : silent
        ? 'ORPHANED'
        : state.session_id === ''
          ? 'UNCLAIMED'
          : 'ACTIVE';
    summaries.push({
      ...base,
      status,
      sessionId: state.session_id === '' ? null : state.session_id,
      iteration: state.iteration,
      maxIterations: state.max_iterations,
      completionPromise: state.completion_promise,
      startedAt: state.started_at,
      lastActivityAt: new Date(activity).toISOString(),
      problem: null,
    });
  }
  return summaries;
}

const EMPTY = {
  sessionId: null,
  iteration: null,
  maxIterations: null,
  completionPromise: null,
  startedAt: null,
  lastActivityAt: null,
};

async function lastActivity(entry: Extract<SessionLoopEntry, { kind: 'loop' }>): Promise<number> {
  const times = [(await stat(entry.path).catch(() => undefined))?.mtimeMs ?? 0];
  const transcript = entry.file.state.transcript_path;
  if (transcript !== undefined)
    times.push((await stat(transcript).catch(() => undefined))?.mtimeMs ?? 0);
  return Math.max(...times);
}

/**
 * Removes the named loops (an id or a unique prefix) or, with `'all'`, every loop file. The
 * journal stays, with a note. Returns the ids removed.
 */
export async function cancelSessionLoops(options: {
  projectDir: string;
  ids: readonly string[] | 'all';
  now: Date;
}): Promise<string[]> {
  return withLoopLock(options.projectDir, 'ralph loop cancel', async () => {
    const entries = await readSessionLoopEntries(options.projectDir);
    const targets =
      options.ids === 'all' ? entries : options.ids.map((id) => findEntry(entries, id));
    const at = options.now.toISOString();
    for (const entry of targets) {
      // lstat first: a refused symlink is removed as a link, never followed.
      if ((await lstat(entry.path).catch(() => undefined)) === undefined) continue;
      await unlink(entry.path);
      if (entry.kind !== 'loop') continue;
      const { state, body } = entry.file;
      const header = journalHeader(state.loop_id, state.started_at, body);
      const note = journalEntry(state.iteration, at, 'Loop cancelled (`ralph loop cancel`)');
      await applyWrites([{ kind: 'journal', path: entry.journalPath, header, entry: note }]);
    }
    return targets.map((entry) => entry.id);
  });
}

function findEntry(entries: readonly SessionLoopEntry[], wanted: string): SessionLoopEntry {
  const exact = entries.find((entry) => entry.id === wanted);
  if (exact !== undefined) return exact;
  const matches = entries.filter((entry) => wanted !== '' && entry.id.startsWith(wanted));
  const [only] = matches;
  if (matches.length === 1 && only !== undefined) return only;
  const known = entries.map((entry) => entry.id).join(', ') || 'none';
  throw new RalphError(
    'LOOP_NOT_FOUND',
    matches.length > 1 ? `"${wanted}" matches several loops` : `no loop ${wanted}`,
    { hint: `Loops in this project: ${known}. See \`ralph loop list\`.` },
  );
}

async function exists(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined)) !== undefined;
}
