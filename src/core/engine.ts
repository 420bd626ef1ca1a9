import { relative } from 'node:path';
import type { AgentAdapter, PermissionMode } from '../agents/types.js';
import { nextStory, summarise } from '../plan/order.js';
import { readTaskListFile } from '../plan/read.js';
import type { Clock } from '../safety/clock.js';
import { loopPaths } from '../state/paths.js';
import type { LoopEvent, Reporter, RunState } from './events.js';
import { runIteration, type IterationSetup } from './iteration.js';
import { selectModel, type ModelSettings } from './model-select.js';
import { buildPrompt } from './prompt.js';

export interface LoopOptions {
  loopDir: string;
  /** Where the agent works: the repository (ralph's own cwd). */
  cwd: string;
  taskListFile: string;
  promptTemplate: string;
  /** Shown in status and events: the feature (branch or folder) name. */
  feature: string;
  maxIterations: number;
  timeoutMs: number;
  pauseMs: number;
  models: ModelSettings;
  permission: PermissionMode;
  settings?: Record<string, unknown> | undefined;
  completionPatterns: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Continue a paused or crashed run: its iteration count and cost carry over. */
  resume?: { iteration: number; costUsd: number } | undefined;
  /** Whether spec.md / specs/ exist, so the prompt only names files that are there. */
  hasSpec: boolean;
  hasSpecsDir: boolean;
}

export interface LoopDependencies {
  agent: AgentAdapter;
  reporters: readonly Reporter[];
  clock: Clock;
  signal: AbortSignal;
}

export interface LoopResult {
  state: Exclude<RunState, 'RUNNING'>;
  reason: string;
  exitCode: number;
  iterations: number;
  costUsd: number;
}

/**
 * The loop (design.md §1): one fresh agent process per iteration, one story each, until every
 * story passes or a limit is reached. Expected endings are results, never exceptions; the only
 * throws are failures to read or write ralph's own state, which must not be papered over.
 */
export async function runLoop(options: LoopOptions, deps: LoopDependencies): Promise<LoopResult> {
  const emit = async (event: LoopEvent): Promise<void> => {
    for (const reporter of deps.reporters) await reporter.onEvent(event);
  };
  const at = (): string => deps.clock.now().toISOString();
  let iteration = options.resume?.iteration ?? 0;
  let costUsd = options.resume?.costUsd ?? 0;
  let document = await readTaskListFile(options.taskListFile);
  const start = summarise(document.taskList);
  await emit({
    type: 'run_started',
    at: at(),
    loopDir: options.loopDir,
    feature: options.feature,
    resumedAfterIteration: iteration,
    maxIterations: options.maxIterations,
    storiesTotal: start.total,
    storiesPassing: start.passing,
    costUsd,
  });

  const finish = async (
    state: LoopResult['state'],
    reason: string,
    exitCode: number,
  ): Promise<LoopResult> => {
    const summary = summarise(document.taskList);
    await emit({
      type: 'run_finished',
      at: at(),
      state,
      reason,
      exitCode,
      iterations: iteration,
      storiesPassing: summary.passing,
      storiesTotal: summary.total,
      costUsd,
    });
    for (const reporter of deps.reporters) await reporter.close?.();
    return { state, reason, exitCode, iterations: iteration, costUsd };
  };

  const setup: IterationSetup = {
    agent: deps.agent,
    cwd: options.cwd,
    env: options.env,
    permission: options.permission,
    settings: options.settings,
    timeoutMs: options.timeoutMs,
    completionPatterns: options.completionPatterns,
    signal: deps.signal,
  };
  const paths = loopPaths(options.loopDir);
  const shown = (path: string): string => relative(options.cwd, path) || '.';

  for (;;) {
    if (deps.signal.aborted) return finish('PAUSED', 'interrupted', 130);
    const summary = summarise(document.taskList);
    if (summary.total > 0 && summary.passing === summary.total) {
      return finish('COMPLETE', 'every story passes', 0);
    }
    if (iteration >= options.maxIterations) {
      return finish('REACHED_LIMIT', `max iterations reached (${options.maxIterations})`, 1);
    }
    const story = nextStory(document.taskList);
    if (story === undefined) {
      const waiting = summary.blocked.map(
        (each) => `${each.id} (dependsOn ${each.dependsOn.join(', ')})`,
      );
      return finish(
        'ERROR',
        `no story can start: ${waiting.join('; ') || 'the task list is empty'}`,
        1,
      );
    }

    iteration += 1;
    const model = selectModel(story, document.taskList, options.models).model;
    const prompt = buildPrompt(options.promptTemplate, story, {
      taskList: shown(options.taskListFile),
      progress: shown(paths.progress),
      spec: options.hasSpec ? shown(paths.spec) : undefined,
      specsDir: options.hasSpecsDir ? `${shown(paths.specsDir)}/` : undefined,
    });
    const storyRef = { id: story.id, title: story.title };
    const logFile = paths.iterationLog(iteration, 1);
    await emit({
      type: 'iteration_started',
      at: at(),
      iteration,
      attempt: 1,
      story: storyRef,
      model,
      logFile,
      promptBytes: Buffer.byteLength(prompt),
    });
    // Agent output arrives while the process runs; reporters see it in order, without blocking it.
    let pending = Promise.resolve();
    const queue = (event: LoopEvent): void => {
      pending = pending.then(() => emit(event));
    };
    const report = await runIteration(setup, {
      before: document,
      story,
      model,
      prompt,
      logFile,
      onToolUse: (name, summaryText) => {
        queue({ type: 'agent_tool_use', at: at(), iteration, name, summary: summaryText });
      },
      onText: (text) => {
        queue({ type: 'agent_text', at: at(), iteration, text });
      },
    });
    await pending;

    costUsd += report.agent.result?.costUsd ?? 0;
    if (report.after !== undefined) document = report.after;
    if (report.restored !== undefined) {
      await emit({ type: 'task_list_restored', at: at(), iteration, ...report.restored });
    }
    if (report.completeNotBelieved !== undefined) {
      await emit({
        type: 'complete_not_believed',
        at: at(),
        iteration,
        openStories: report.completeNotBelieved,
      });
    }
    const after = summarise(document.taskList);
    await emit({
      type: 'iteration_finished',
      at: at(),
      iteration,
      attempt: 1,
      story: storyRef,
      outcome: report.outcome,
      detail: report.detail,
      signal: report.signal,
      newlyPassing: report.newlyPassing,
      storiesPassing: after.passing,
      storiesTotal: after.total,
      sessionId: report.agent.sessionId ?? report.agent.result?.sessionId,
      model: report.agent.model ?? model,
      costUsd: report.agent.result?.costUsd,
      usage: report.agent.result?.usage,
      numTurns: report.agent.result?.numTurns,
      exitCode: report.agent.exitCode,
      durationMs: report.agent.durationMs,
    });
    if (report.outcome === 'canceled') return finish('PAUSED', 'interrupted', 130);
    if (report.agent.spawnError !== undefined) {
      return finish('ERROR', `the agent could not be started: ${report.agent.spawnError}`, 2);
    }
    if (report.outcome === 'complete') return finish('COMPLETE', 'every story passes', 0);
    await deps.clock.sleep(options.pauseMs, deps.signal);
  }
}
