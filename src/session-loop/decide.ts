import type { StopHookInput, StopHookOutput } from './hook-input.js';
import { journalEntry, journalHeader } from './journal.js';
import { containsPromise, normalisePromise } from './promise.js';
import { serialiseSessionLoopFile, type SessionLoopFile } from './state-file.js';

/**
 * What the Stop hook does, as a pure function of its input, the loop files found, the time and
 * the configuration. The caller (stop-hook.ts) reads the files, applies `writes` under the loop
 * lock, then prints `output`. Rules:
 *  - corrupt state files never trap a session: they are removed and never cause a block;
 *  - symlinked state files are refused: not followed, not touched;
 *  - a loop owned by another session is never touched (the official plugin's hijack bug);
 *  - a session handles at most one loop: its own (oldest first), else it claims ONE unclaimed loop
 *    (the oldest), so a second terminal's fresh loop is not swallowed by a session that has one;
 *  - `stop_hook_active` is deliberately ignored: re-blocking is the whole point of a loop, and the
 *    iteration limit plus the backstop (config loop.backstopIterations) bound it.
 */

export type SessionLoopEntry =
  | {
      kind: 'loop';
      id: string;
      path: string;
      journalPath: string;
      raw: string;
      file: SessionLoopFile;
    }
  | { kind: 'corrupt'; id: string; path: string; reason: string }
  | { kind: 'symlink'; id: string; path: string };

export interface StopDecisionConfig {
  backstopIterations: number;
}

export type Write =
  | { kind: 'state'; path: string; content: string }
  | { kind: 'remove'; path: string }
  | { kind: 'journal'; path: string; header: string; entry: string };

export type Outcome = 'none' | 'blocked' | 'completed' | 'max-iterations' | 'backstop';

export interface StopDecision {
  outcome: Outcome;
  loopId: string | undefined;
  /** Printed as JSON on stdout; undefined prints nothing (allow the stop silently). */
  output: StopHookOutput | undefined;
  writes: Write[];
  /** Lines for stderr. */
  warnings: string[];
}

type ValidLoop = Extract<SessionLoopEntry, { kind: 'loop' }>;

export function decideStop(
  input: StopHookInput,
  loops: readonly SessionLoopEntry[],
  now: Date,
  config: StopDecisionConfig,
  transcriptText?: string,
): StopDecision {
  const writes: Write[] = [];
  const warnings: string[] = [];
  for (const entry of loops) {
    if (entry.kind === 'corrupt') {
      writes.push({ kind: 'remove', path: entry.path });
      warnings.push(
        `ralph stop-hook: ${entry.path} is corrupt (${entry.reason}); removed it and let the session stop`,
      );
    } else if (entry.kind === 'symlink') {
      warnings.push(
        `ralph stop-hook: ${entry.path} is a symbolic link; refused it (not followed, left in place)`,
      );
    }
  }
  const { target, claimed } = pickLoop(input.session_id, loops);
  if (target === undefined) {
    const output = warnings.length > 0 ? { systemMessage: warnings.join('\n') } : undefined;
    return { outcome: 'none', loopId: undefined, output, writes, warnings };
  }
  const handled = handle(input, target, claimed, now, config, transcriptText);
  return { ...handled, writes: [...writes, ...handled.writes], warnings };
}

/** Whether decideStop() could use the transcript: only then is it worth reading. */
export function needsTranscript(input: StopHookInput, loops: readonly SessionLoopEntry[]): boolean {
  if (input.last_assistant_message != null) return false;
  return pickLoop(input.session_id, loops).target !== undefined;
}

function pickLoop(
  sessionId: string,
  loops: readonly SessionLoopEntry[],
): { target: ValidLoop | undefined; claimed: boolean } {
  const active = loops
    .filter((entry): entry is ValidLoop => entry.kind === 'loop' && entry.file.state.active)
    .sort(byAge);
  const own = active.find((entry) => entry.file.state.session_id === sessionId);
  if (own !== undefined) return { target: own, claimed: false };
  const unclaimed = active.find((entry) => entry.file.state.session_id === '');
  return { target: unclaimed, claimed: unclaimed !== undefined };
}

function byAge(a: ValidLoop, b: ValidLoop): number {
  const started = a.file.state.started_at.localeCompare(b.file.state.started_at);
  return started !== 0 ? started : a.id.localeCompare(b.id);
}

function handle(
  input: StopHookInput,
  loop: ValidLoop,
  claimed: boolean,
  now: Date,
  config: StopDecisionConfig,
  transcriptText: string | undefined,
): Omit<StopDecision, 'warnings'> {
  const { state, body } = loop.file;
  const at = now.toISOString();
  const journal = (entry: string): Write => ({
    kind: 'journal',
    path: loop.journalPath,
    header: journalHeader(state.loop_id, state.started_at, body),
    entry: journalEntry(state.iteration, at, claimedNote(claimed, input.session_id) + entry),
  });
  const end = (outcome: Outcome, why: string): Omit<StopDecision, 'warnings'> => ({
    outcome,
    loopId: loop.id,
    output: {
      systemMessage: `ralph loop ${loop.id} ended at iteration ${state.iteration}: ${why}`,
    },
    writes: [{ kind: 'remove', path: loop.path }, journal(`Loop ended: ${why}`)],
  });

  const lastText = input.last_assistant_message ?? transcriptText;
  const promise = state.completion_promise;
  if (promise !== null && containsPromise(lastText, promise)) {
    return end(
      'completed',
      `completion promise <promise>${normalisePromise(promise)}</promise> found`,
    );
  }
  if (state.max_iterations > 0 && state.iteration >= state.max_iterations) {
    return end('max-iterations', `reached max_iterations (${state.max_iterations})`);
  }
  if (state.iteration >= config.backstopIterations) {
    return end(
      'backstop',
      `reached the backstop of ${config.backstopIterations} iterations (config loop.backstopIterations)`,
    );
  }

  const next = state.iteration + 1;
  const nextState = {
    ...state,
    session_id: input.session_id,
    iteration: next,
    ...(claimed ? { claimed_at: at } : {}),
    ...(input.transcript_path === undefined ? {} : { transcript_path: input.transcript_path }),
  };
  return {
    outcome: 'blocked',
    loopId: loop.id,
    output: {
      decision: 'block',
      reason: body,
      systemMessage: systemMessage(loop.id, nextState, config),
    },
    writes: [
      {
        kind: 'state',
        path: loop.path,
        content: serialiseSessionLoopFile({ state: nextState, body }),
      },
      journal(`Continuing to iteration ${next}`),
    ],
  };
}

function claimedNote(claimed: boolean, sessionId: string): string {
  return claimed ? `Claimed by session ${sessionId}. ` : '';
}

function systemMessage(
  id: string,
  state: SessionLoopFile['state'],
  config: StopDecisionConfig,
): string {
  const limit =
    state.max_iterations > 0
      ? Math.min(state.max_iterations, config.backstopIterations)
      : config.backstopIterations;
  const head = `ralph loop ${id}: iteration ${state.iteration} of ${limit}${state.max_iterations > 0 ? '' : ' (backstop)'}`;
  const journal = `journal .claude/ralph-journal-${id}.md`;
  if (state.completion_promise === null)
    return `${head}, ${journal}; no completion promise: the loop ends after iteration ${limit} or with \`ralph loop cancel ${id}\``;
  return `${head}, ${journal}; to stop, output <promise>${normalisePromise(state.completion_promise)}</promise> only when it is true`;
}
