import * as z from 'zod';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { AgentRunResult } from '../agents/types.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { readFileNoFollow } from '../util/no-follow.js';
import { RalphError } from '../util/errors.js';
import {
  agentFailure,
  checkSessionOptions,
  prepareSession,
  runSessionAgent,
  withSessionLock,
  type Session,
  type SessionOptions,
} from './agent-session.js';
import {
  DEBUG_PENDING,
  DEBUG_TAG,
  debugStatusSchema,
  readTaggedBlock,
  replaceLastBlock,
  type DebugState,
  type DebugStatus,
} from './verdict.js';

export interface DebugOptions extends SessionOptions {
  /** What is wrong, in the person's words; required for a new session. */
  problem?: string | undefined;
  /** Go on from DIR/debug-state.md (`--continue`); a problem given too is added as new information. */
  continue?: boolean | undefined;
  /** Discard DIR/debug-state.md and start over (`--reset`). */
  reset?: boolean | undefined;
  /** The clock of the session log; default the system's. */
  now?: (() => Date) | undefined;
}

/** The spec's return states, and ERROR for a session that ended without one. */
export type DebugOutcome = DebugState | 'ERROR';

export interface DebugResult {
  state: DebugOutcome;
  /** 0 ROOT_CAUSE_FOUND / DEBUG_COMPLETE, 10 CHECKPOINT_REACHED, 1 ERROR (the spec's codes). */
  exitCode: 0 | 1 | 10;
  /** The agent's status block, when it wrote a valid one. */
  status: DebugStatus | undefined;
  /** Why the state is ERROR. */
  problem: string | undefined;
  session: number;
  stateFile: string;
  logFile: string;
  interrupted: boolean;
  agent: AgentRunResult;
}

const PROMPT = new URL('../../templates/debug.md', import.meta.url);
const STATE_TEMPLATE = new URL('../../templates/debug-state.md', import.meta.url);
const EXIT_CODES: Readonly<Record<DebugOutcome, 0 | 1 | 10>> = {
  ROOT_CAUSE_FOUND: 0,
  DEBUG_COMPLETE: 0,
  CHECKPOINT_REACHED: 10,
  ERROR: 1,
};

/**
 * `ralph debug`: one session of a scientific-method investigation whose memory is
 * DIR/debug-state.md. ralph creates the file (or keeps it with --continue), marks the session in
 * it and resets its status block to IN_PROGRESS, so the state read afterwards is the one this
 * session's agent wrote, never a stale one.
 */
export async function debugProblem(options: DebugOptions): Promise<DebugResult> {
  const { problem: rawProblem, continue: carryOn, reset, now, ...rest } = options;
  const problem = rawProblem?.trim() === '' ? undefined : rawProblem?.trim();
  if (carryOn === true && reset === true) {
    throw new RalphError('USAGE', 'debug: --continue and --reset contradict each other', {
      hint: 'continue the session in debug-state.md, or reset it and describe the problem',
    });
  }
  if (carryOn !== true && problem === undefined) {
    throw new RalphError('USAGE', 'debug: describe the problem to start a session', {
      hint: 'ralph debug "tests fail after the refactor", or --continue the last session',
    });
  }
  const session = await prepareSession(checkSessionOptions('debugProblem', rest));
  return withSessionLock(session, 'ralph debug', () =>
    debugLocked(session, { problem, carryOn: carryOn === true, reset: reset === true, now }),
  );
}

async function debugLocked(
  session: Session,
  request: {
    problem: string | undefined;
    carryOn: boolean;
    reset: boolean;
    now: (() => Date) | undefined;
  },
): Promise<DebugResult> {
  const { problem, carryOn, reset, now } = request;
  const stateFile = session.paths.debugState;
  // Not through a link: the agent could point the state file at a secret for ralph to copy here.
  const existing = await readFileNoFollow(stateFile).catch(() => undefined);
  if (carryOn && existing === undefined) {
    throw new RalphError('USAGE', `debug: no session to continue: ${stateFile} does not exist`, {
      hint: 'start one with ralph debug "PROBLEM"',
    });
  }
  if (!carryOn && !reset && existing !== undefined) {
    throw new RalphError('USAGE', `debug: a session is already recorded in ${stateFile}`, {
      hint: 'go on with --continue, or discard it with --reset "PROBLEM"',
    });
  }
  const base =
    carryOn && existing !== undefined
      ? existing
      : (await readFile(STATE_TEMPLATE, 'utf8')).replace('{{problem}}', () => problem ?? '');
  const number = sessionCount(base) + 1;
  const started = (now ?? (() => new Date()))().toISOString();
  const note = carryOn && problem !== undefined ? `; new information: ${problem}` : '';
  const sessionLine = `- session ${number}, started ${started}, model ${session.model ?? "the agent's default"}${note}`;
  const prepared = replaceLastBlock(withSessionLine(base, sessionLine), DEBUG_TAG, {
    state: DEBUG_PENDING,
  });
  await writeFileAtomic(stateFile, prepared);
  const logFile = session.paths.debugLog(number);
  const prompt = await debugPrompt(session, number, carryOn ? problem : undefined);
  const agent = await runSessionAgent(session, prompt, logFile);
  const after = (await readFileNoFollow(stateFile).catch(() => undefined)) ?? prepared;
  const outcome = judge(after, agentFailure(agent));
  // An interrupted session is no error of the investigation: --continue goes on from it.
  const marked = `${sessionLine} → ${agent.canceled ? 'interrupted' : outcome.state}`;
  const ended = after.includes(sessionLine)
    ? after.replace(sessionLine, () => marked)
    : withSessionLine(after, marked);
  await writeFileAtomic(stateFile, ended);
  return {
    ...outcome,
    exitCode: EXIT_CODES[outcome.state],
    session: number,
    stateFile,
    logFile,
    interrupted: agent.canceled,
    agent,
  };
}

function judge(
  text: string,
  failure: string | undefined,
): Pick<DebugResult, 'state' | 'status' | 'problem'> {
  if (failure !== undefined) return { state: 'ERROR', status: undefined, problem: failure };
  const parsed = readTaggedBlock(text, DEBUG_TAG, debugStatusSchema);
  if (parsed.ok) return { state: parsed.value.state, status: parsed.value, problem: undefined };
  const pending = readTaggedBlock(text, DEBUG_TAG, pendingSchema);
  const problem = pending.ok
    ? 'the agent ended the session without recording its state in debug-state.md'
    : `debug-state.md has no valid status: ${parsed.problem}`;
  return { state: 'ERROR', status: undefined, problem };
}

const pendingSchema = z.object({ state: z.literal(DEBUG_PENDING) });

/** Sessions ralph has recorded in the file (its `- session N, …` lines). */
function sessionCount(text: string): number {
  return [...text.matchAll(/^- session (\d+),/gm)].length;
}

/** Adds a line at the end of the Sessions section, or at the end when there is none. */
function withSessionLine(text: string, line: string): string {
  const status = /^## Status[ \t]*$/m.exec(text);
  if (/^## Sessions[ \t]*$/m.test(text) && status !== null) {
    const before = text.slice(0, status.index).trimEnd();
    return `${before}\n${line}\n\n${text.slice(status.index)}`;
  }
  return `${text.trimEnd()}\n\n${line}\n`;
}

async function debugPrompt(
  session: Session,
  number: number,
  newInformation: string | undefined,
): Promise<string> {
  const { paths, repoRoot } = session;
  const inRepo = relative(repoRoot, paths.debugState);
  const stateFile = inRepo.startsWith('..') ? paths.debugState : inRepo;
  const template = await readFile(PROMPT, 'utf8');
  const lines = [
    template.trimEnd(),
    '',
    '---',
    '',
    '## This session',
    '',
    `Session ${number}. The debug state: ${stateFile} (the problem is at its top).`,
  ];
  if (number > 1) {
    lines.push(
      'Earlier sessions left their symptoms, evidence and checkpoints there: go on from the last checkpoint.',
    );
  }
  if (newInformation !== undefined)
    lines.push('', `New information from the person: ${newInformation}`);
  return `${lines.join('\n')}\n`;
}
