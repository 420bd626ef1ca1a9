import type { TokenUsage } from '../agents/types.js';
import type { ClassificationKind } from '../safety/classify.js';
import type { BreakerPosition } from '../safety/circuit-breaker.js';

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

/** Why a run ended, for machines (the `reason` beside it is for people). */
export type StopReason =
  | 'complete'
  | 'max_iterations'
  | 'blocked'
  | 'breaker'
  | 'budget'
  | 'usage_limit'
  | 'fatal'
  /** A problem a person must fix in the task list or configuration (exit 2). */
  | 'invalid_input'
  | 'interrupted';

/** The circuit breaker as a reader shows it: "CLOSED, no progress 2/3". */
export interface BreakerSnapshot {
  state: BreakerPosition;
  noProgress: number;
  sameError: number;
  permissionDenials: number;
  thresholds: { noProgress: number; sameError: number; permissionDenials: number };
  reason: string | undefined;
  /** When OPEN: the earliest time a new run may try again (HALF_OPEN). */
  cooldownUntil: string | undefined;
}

/** Cost and tokens so far, of one story (all its runs) or of the run. */
export interface Spend {
  costUsd: number;
  tokens: TokenUsage;
}

/** What ralph waits for: the hourly call/token window, a usage-limit reset, a retry backoff. */
export type WaitReason = 'rate_limit' | 'usage_limit' | 'retry';

export type LoopEvent =
  | (Base & {
      type: 'run_started';
      loopDir: string;
      feature: string;
      /** The iteration this run starts after (0 for a new run, N when resuming). */
      resumedAfterIteration: number;
      /**
       * The loop directory's iteration count as this run starts: numbering goes on from it,
       * resumed or not, so no run ever reuses an earlier run's iteration numbers (and logs).
       */
      iteration: number;
      maxIterations: number;
      storiesTotal: number;
      storiesPassing: number;
      costUsd: number;
      tokens?: TokenUsage;
      breaker?: BreakerSnapshot;
      /** The agent calls and tokens allowed per hour (undefined: no limit). */
      rateLimit?: { callsPerHour: number | undefined; tokensPerHour: number | undefined };
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
  /** The agent's init line: the session and the model it actually runs (not just the one asked). */
  | (Base & {
      type: 'agent_started';
      iteration: number;
      attempt: number;
      sessionId?: string;
      model?: string;
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
      /** How the attempt ended for the safety policies (inspect shows the same). */
      classification?: ClassificationKind;
      classificationWhy?: string;
      /** Another attempt of this iteration follows (a retry, or after a usage-limit wait). */
      willRetry?: boolean;
      /** Set on an iteration's last attempt: the breaker after counting it. */
      breaker?: BreakerSnapshot;
      /** Totals after this attempt: the story over all its runs, and this run. */
      storySpend?: Spend;
      runSpend?: Spend;
      /** Agent calls in the last hour, this one included. */
      callsLastHour?: number;
      /** Tool calls refused in this attempt (the guard's denials included), by tool name. */
      deniedTools?: string[];
    })
  | (Base & {
      type: 'breaker_changed';
      from: BreakerPosition;
      to: BreakerPosition;
      reason: string;
      breaker: BreakerSnapshot;
    })
  | (Base & {
      type: 'wait_started';
      reason: WaitReason;
      /** ISO time the wait ends: a countdown is `until - now`. */
      until: string;
      durationMs: number;
      detail: string;
      /** The iteration and attempt that will run after the wait, when there is one. */
      iteration?: number;
      attempt?: number;
    })
  | (Base & { type: 'wait_progress'; reason: WaitReason; until: string; remainingMs: number })
  | (Base & { type: 'wait_finished'; reason: WaitReason; interrupted: boolean })
  | (Base & {
      type: 'usage_limit';
      iteration: number;
      attempt: number;
      source: string;
      message: string;
      /** ISO time the limit resets, when known. */
      resetAt: string | undefined;
      window: string | undefined;
      /** What ralph does: per --on-usage-limit, or the answer when it asked. */
      action: 'wait' | 'exit';
      /** --on-usage-limit ask: whether a person answered (false: no answer in time, or no TTY). */
      answered?: boolean;
    })
  | (Base & {
      type: 'budget_exceeded';
      scope: 'run' | 'story';
      storyId: string | undefined;
      spentUsd: number;
      limitUsd: number;
      message: string;
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
      stopReason?: StopReason;
      /** What to do about it, when the person has to act (fatal errors, the breaker, budget). */
      hint?: string;
      exitCode: number;
      iterations: number;
      storiesPassing: number;
      storiesTotal: number;
      costUsd: number;
      tokens?: TokenUsage;
    });

export type LoopEventType = LoopEvent['type'];

/** Receives every event in order. A reporter that throws stops the run (state must not be lost). */
export interface Reporter {
  onEvent(event: LoopEvent): void | Promise<void>;
  /** Called once after run_finished (flush files, stop timers). */
  close?(): void | Promise<void>;
}
