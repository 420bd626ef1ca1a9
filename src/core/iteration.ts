import { readFile } from 'node:fs/promises';
import type { AgentAdapter, AgentRunResult, PermissionMode } from '../agents/types.js';
import { parseTaskList, type TaskListDocument } from '../plan/read.js';
import type { Story } from '../plan/types.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { detectCompletion, type CompletionSignal } from './completion.js';
import type { IterationOutcome } from './events.js';
import { checkTaskListChange } from './task-list-check.js';

/** Everything one iteration needs beyond the story: fixed for the whole run. */
export interface IterationSetup {
  agent: AgentAdapter;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  permission: PermissionMode;
  settings: Record<string, unknown> | undefined;
  timeoutMs: number;
  completionPatterns: readonly string[];
  signal: AbortSignal;
}

export interface IterationInput {
  before: TaskListDocument;
  story: Story;
  model: string | undefined;
  prompt: string;
  logFile: string;
  onToolUse: (name: string, summary: string) => void;
  onText: (text: string) => void;
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
    signal: setup.signal,
    onEvent: (event) => {
      if (event.type === 'tool_use') input.onToolUse(event.call.name, event.call.summary);
      else if (event.type === 'text') input.onText(event.text);
    },
  });

  const { after, restored } = await settleTaskList(input.before);
  const newlyPassing = after.taskList.stories
    .filter((story) => story.passes && !wasPassing(input.before, story.id))
    .map((story) => story.id);
  const signal = detectCompletion(agent.finalText, setup.completionPatterns);
  const open = after.taskList.stories.filter((story) => !story.passes).map((story) => story.id);
  const allPass = after.taskList.stories.length > 0 && open.length === 0;
  const claimsComplete = signal === 'COMPLETE' || signal === 'custom';
  const base = { agent, signal, after, newlyPassing, restored };
  const completeNotBelieved = claimsComplete && !allPass ? open : undefined;

  const failure = agentFailure(agent);
  if (agent.canceled)
    return { ...base, outcome: 'canceled', detail: 'stopped by the user', completeNotBelieved };
  if (agent.timedOut) {
    return {
      ...base,
      outcome: 'timeout',
      detail: `no result within ${Math.round(setup.timeoutMs / 1000)} s: agent killed`,
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
  if (allPass)
    return { ...base, outcome: 'complete', detail: 'every story passes', completeNotBelieved };
  if (newlyPassing.length > 0) {
    return {
      ...base,
      outcome: 'progress',
      detail: `${newlyPassing.join(', ')} now passing`,
      completeNotBelieved,
    };
  }
  return {
    ...base,
    outcome: 'no_progress',
    detail:
      signal === 'STORY_COMPLETE'
        ? 'STORY_COMPLETE printed but no story was marked passing'
        : 'no story was marked passing',
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
  const afterText = await readFile(before.file, 'utf8').catch(() => '');
  const check = checkTaskListChange(before, afterText);
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

function firstLine(text: string): string {
  const line =
    text
      .trim()
      .split('\n')
      .find((each) => each.trim() !== '') ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}
