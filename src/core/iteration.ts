import { dirname } from 'node:path';
import type { AgentAdapter, AgentEvent, AgentRunResult, PermissionMode } from '../agents/types.js';
import { parseTaskList, type TaskListDocument } from '../plan/read.js';
import type { Story } from '../plan/types.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { folderPin, isUnsafeFileError, readFileNoFollow } from '../util/no-follow.js';
import { detectCompletion, type CompletionSignal } from './completion.js';
import type { IterationOutcome } from './events.js';
import { checkTaskListChange, replacedTaskList } from './task-list-check.js';

/** Everything one iteration needs beyond the story: fixed for the whole run. */
export interface IterationSetup {
  agent: AgentAdapter;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  permission: PermissionMode;
  settings: Record<string, unknown> | undefined;
  timeoutMs: number;
  /** No output for this long kills the agent (undefined: the adapter's default). */
  idleTimeoutMs?: number | undefined;
  /** Lingering this long after the result line kills the agent (undefined: the adapter's). */
  resultGraceMs?: number | undefined;
  /** Agent output lines are cut at this many bytes (undefined: the adapter's default). */
  maxLineBytes?: number | undefined;
  completionPatterns: readonly string[];
  /** completion.promise (default `<promise>COMPLETE</promise>`). */
  completionPromise?: string | undefined;
  signal: AbortSignal;
}

export interface IterationInput {
  before: TaskListDocument;
  story: Story;
  model: string | undefined;
  prompt: string;
  logFile: string;
  onToolUse: (name: string, summary: string) => void;
  /** The agent's first line: its session and the model it really runs. */
  onInit?: (sessionId: string | undefined, model: string | undefined) => void;
  onText: (text: string) => void;
  /** Claude Code announced a retry of an API request (its api_retry line). */
  onRetry?: (retry: Extract<AgentEvent, { type: 'api_retry' }>) => void;
}

export interface IterationReport {
  agent: AgentRunResult;
  outcome: IterationOutcome;
  detail: string;
  signal: CompletionSignal | undefined;
  /** The task list as it stands after the iteration (restored if the agent broke the rules). */
  after: TaskListDocument | undefined;
  newlyPassing: string[];
  /** Set when the agent's task-list edits had to be undone. */
  restored: { problems: string[]; kept: string[] } | undefined;
  /** COMPLETE printed while stories were still open: logged, not believed. */
  completeNotBelieved: string[] | undefined;
}

/** Runs the agent once on one story and judges what it did. */
export async function runIteration(
  setup: IterationSetup,
  input: IterationInput,
): Promise<IterationReport> {
  // The loop folder must still be itself when ralph writes the task list back (see folderPin).
  const sameFolder = folderPin(dirname(input.before.file));
  await sameFolder();
  const agent = await setup.agent.run({
    prompt: input.prompt,
    cwd: setup.cwd,
    model: input.model,
    mcpServers: input.story.mcpServers,
    permission: setup.permission,
    settings: setup.settings,
    env: setup.env,
    logFile: input.logFile,
    timeoutMs: setup.timeoutMs,
    idleTimeoutMs: setup.idleTimeoutMs,
    resultGraceMs: setup.resultGraceMs,
    maxLineBytes: setup.maxLineBytes,
    signal: setup.signal,
    onEvent: (event) => {
      if (event.type === 'tool_use') input.onToolUse(event.call.name, event.call.summary);
      else if (event.type === 'text') input.onText(event.text);
      else if (event.type === 'init') input.onInit?.(event.sessionId, event.model);
      else if (event.type === 'api_retry') input.onRetry?.(event);
    },
  });

  await sameFolder();
  const { after, restored } = await settleTaskList(input.before);
  const newlyPassing = after.taskList.stories
    .filter((story) => story.passes && !wasPassing(input.before, story.id))
    .map((story) => story.id);
  const signal = detectCompletion(
    agent.finalText,
    setup.completionPatterns,
    setup.completionPromise,
  );
  const open = after.taskList.stories.filter((story) => !story.passes).map((story) => story.id);
  const allPass = after.taskList.stories.length > 0 && open.length === 0;
  const claimsComplete = signal === 'COMPLETE' || signal === 'custom';
  const base = { agent, signal, after, newlyPassing, restored };
  const completeNotBelieved = claimsComplete && !allPass ? open : undefined;

  const failure = agentFailure(agent);
  if (agent.canceled)
    return { ...base, outcome: 'canceled', detail: 'stopped by the user', completeNotBelieved };
  if (agent.timedOut) {
    const idle = agent.idleTimedOut === true && setup.idleTimeoutMs !== undefined;
    return {
      ...base,
      outcome: 'timeout',
      detail: idle
        ? `no output for ${seconds(setup.idleTimeoutMs ?? 0)}: agent killed`
        : `no result within ${seconds(setup.timeoutMs)}: agent killed`,
      completeNotBelieved,
    };
  }
  if (failure !== undefined)
    return { ...base, outcome: 'error', detail: failure, completeNotBelieved };
  if (restored !== undefined) {
    return {
      ...base,
      outcome: 'error',
      detail: `task list restored: ${restored.problems.join('; ')}`,
      completeNotBelieved,
    };
  }
  const lingered =
    agent.killedAfterResult === true
      ? ` (killed ${seconds(setup.resultGraceMs ?? 0)} after its result: it did not exit)`
      : '';
  if (allPass) {
    return {
      ...base,
      outcome: 'complete',
      detail: `every story passes${lingered}`,
      completeNotBelieved,
    };
  }
  if (newlyPassing.length > 0) {
    return {
      ...base,
      outcome: 'progress',
      detail: `${newlyPassing.join(', ')} now passing${lingered}`,
      completeNotBelieved,
    };
  }
  return {
    ...base,
    outcome: 'no_progress',
    detail: `${
      signal === 'STORY_COMPLETE'
        ? 'STORY_COMPLETE printed but no story was marked passing'
        : 'no story was marked passing'
    }${lingered}`,
    completeNotBelieved,
  };
}

/** Why the agent process failed, or undefined when it ran to a normal end. */
export function agentFailure(agent: AgentRunResult): string | undefined {
  if (agent.spawnError !== undefined) return `the agent could not be started: ${agent.spawnError}`;
  const result = agent.result;
  if (result?.isError === true) {
    const status = result.apiErrorStatus === undefined ? '' : ` (API ${result.apiErrorStatus})`;
    return `agent reported an error${status}: ${firstLine(result.resultText ?? result.subtype ?? 'no message')}`;
  }
  // Killed for lingering after a good result line: the result is what counts.
  if (agent.killedAfterResult === true && result !== undefined) return undefined;
  if (agent.exitCode !== 0) {
    const how =
      agent.exitSignal !== undefined
        ? `killed by ${agent.exitSignal}`
        : `exit code ${String(agent.exitCode)}`;
    const said = firstLine(agent.result?.resultText ?? agent.stderrTail);
    return `agent ended with ${how}${said === '' ? '' : `: ${said}`}`;
  }
  return undefined;
}

async function settleTaskList(
  before: TaskListDocument,
): Promise<{ after: TaskListDocument; restored: IterationReport['restored'] }> {
  // Without following a link: the agent may have swapped the task list for a link to a file
  // outside, whose content would otherwise be read into messages and written back here.
  const afterText = await readFileNoFollow(before.file).catch((error: unknown) =>
    isUnsafeFileError(error) ? { unsafe: error.what } : '',
  );
  const check =
    typeof afterText === 'string'
      ? checkTaskListChange(before, afterText)
      : replacedTaskList(before, afterText.unsafe);
  if (check.ok) return { after: check.after, restored: undefined };
  await writeFileAtomic(before.file, check.restoredText);
  return {
    after: parseTaskList(check.restoredText, before.file),
    restored: { problems: check.problems, kept: check.kept },
  };
}

function wasPassing(doc: TaskListDocument, id: string): boolean {
  return doc.taskList.stories.some((story) => story.id === id && story.passes);
}

function seconds(ms: number): string {
  return ms >= 120_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

function firstLine(text: string): string {
  const line =
    text
      .trim()
      .split('\n')
      .find((each) => each.trim() !== '') ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}
