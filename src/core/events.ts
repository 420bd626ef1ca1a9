import type { TokenUsage } from '../agents/types.js';

/**
 * The one event stream of a run (design.md §1). Everything a person sees — status.json,
 * events.jsonl, progress.txt's session history, the terminal, the monitor — is a Reporter of
 * these events, so a process that did not start the loop can follow it from events.jsonl.
 */

export type RunState = 'RUNNING' | 'PAUSED' | 'COMPLETE' | 'REACHED_LIMIT' | 'ERROR';

export interface StoryRef {
  id: string;
  title: string;
}

/** How an iteration ended, from the loop's point of view. */
export type IterationOutcome =
  /** The agent finished a story (a story newly passes) and more remain. */
  | 'progress'
  /** Every story passes now. */
  | 'complete'
  /** The agent ran to the end but no story changed to passing. */
  | 'no_progress'
  /** The agent failed: non-zero exit, error result, crash, or tampering that had to be undone. */
  | 'error'
  /** The iteration ran past its time limit and the agent was killed. */
  | 'timeout'
  /** Ctrl+C / stop: the agent was killed and the run pauses. */
  | 'canceled';

interface Base {
  /** ISO 8601 time of the event. */
  at: string;
}

export type LoopEvent =
  | (Base & {
      type: 'run_started';
      loopDir: string;
      feature: string;
      /** The iteration this run starts after (0 for a new run, N when resuming). */
      resumedAfterIteration: number;
      maxIterations: number;
      storiesTotal: number;
      storiesPassing: number;
      costUsd: number;
    })
  | (Base & {
      type: 'iteration_started';
      iteration: number;
      attempt: number;
      story: StoryRef;
      model: string | undefined;
      logFile: string;
      promptBytes: number;
    })
  | (Base & { type: 'agent_tool_use'; iteration: number; name: string; summary: string })
  | (Base & { type: 'agent_text'; iteration: number; text: string })
  | (Base & {
      type: 'iteration_finished';
      iteration: number;
      attempt: number;
      story: StoryRef;
      outcome: IterationOutcome;
      /** Why, for a person: "story complete", "exit code 1: API Error: 529 …", … */
      detail: string;
      /** The promise the agent printed in its final message, if any. */
      signal: 'STORY_COMPLETE' | 'COMPLETE' | 'custom' | undefined;
      newlyPassing: string[];
      storiesPassing: number;
      storiesTotal: number;
      sessionId: string | undefined;
      model: string | undefined;
      costUsd: number | undefined;
      usage: TokenUsage | undefined;
      numTurns: number | undefined;
      exitCode: number | undefined;
      durationMs: number;
    })
  | (Base & {
      type: 'task_list_restored';
      iteration: number;
      /** What the agent did that it may not do (e.g. "removed STORY-003"). */
      problems: string[];
      /** Legitimate passes/notes changes that were kept. */
      kept: string[];
    })
  | (Base & { type: 'complete_not_believed'; iteration: number; openStories: string[] })
  | (Base & { type: 'warning'; message: string })
  | (Base & {
      type: 'run_finished';
      state: Exclude<RunState, 'RUNNING'>;
      reason: string;
      exitCode: number;
      iterations: number;
      storiesPassing: number;
      storiesTotal: number;
      costUsd: number;
    });

export type LoopEventType = LoopEvent['type'];

/** Receives every event in order. A reporter that throws stops the run (state must not be lost). */
export interface Reporter {
  onEvent(event: LoopEvent): void | Promise<void>;
  /** Called once after run_finished (flush files, stop timers). */
  close?(): void | Promise<void>;
}
