import * as z from 'zod';
import type { ClassificationKind } from '../safety/classify.js';
import { tokenCountsSchema } from '../safety/budget.js';
import { BREAKER_STATES } from '../safety/circuit-breaker.js';
import { runStateSchema, STOP_REASONS, WAIT_REASONS } from '../state/status.js';

/**
 * The one event stream of a run (design.md §1). Everything a person sees — status.json,
 * events.jsonl, progress.txt's session history, the terminal, the monitor — is a Reporter of
 * these events, so a process that did not start the loop can follow it from events.jsonl.
 *
 * One zod schema is the contract: the engine's types are inferred from it and every reader of
 * events.jsonl parses through it (monitor/events.ts), so a field cannot be written one way and
 * read another. Optional fields are the ones the engine leaves out (JSON drops `undefined`).
 */

export type { RunState } from '../state/status.js';

const storyRefSchema = z.object({ id: z.string(), title: z.string() });
export type StoryRef = z.infer<typeof storyRefSchema>;

/**
 * How an iteration ended, from the loop's point of view.
 * - progress: the agent finished a story (a story newly passes) and more remain.
 * - complete: every story passes now.
 * - no_progress: the agent ran to the end but no story changed to passing.
 * - error: non-zero exit, error result, crash, or tampering that had to be undone.
 * - timeout: the iteration ran past its time limit and the agent was killed.
 * - canceled: Ctrl+C / stop: the agent was killed and the run pauses.
 */
const iterationOutcomeSchema = z.enum([
  'progress',
  'complete',
  'no_progress',
  'error',
  'timeout',
  'canceled',
]);
export type IterationOutcome = z.infer<typeof iterationOutcomeSchema>;

/** Why a run ended, for machines (the `reason` beside it is for people). */
const stopReasonSchema = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof stopReasonSchema>;

/**
 * safety/classify.ts owns the kinds: a kind listed here that it lacks fails `satisfies`, and one
 * it adds that is missing here fails where the engine puts its verdict into the event.
 */
const CLASSIFICATION_KINDS = [
  'none',
  'timeout',
  'usage_limit',
  'transient',
  'fatal',
] as const satisfies readonly ClassificationKind[];

const breakerPositionSchema = z.enum(BREAKER_STATES);

/** The circuit breaker as a reader shows it: "CLOSED, no progress 2/3". */
const breakerSnapshotSchema = z.object({
  state: breakerPositionSchema,
  noProgress: z.number(),
  sameError: z.number(),
  permissionDenials: z.number(),
  thresholds: z.object({
    noProgress: z.number(),
    sameError: z.number(),
    permissionDenials: z.number(),
  }),
  reason: z.string().optional(),
  /** When OPEN: the earliest time a new run may try again (HALF_OPEN). */
  cooldownUntil: z.string().optional(),
});
export type BreakerSnapshot = z.infer<typeof breakerSnapshotSchema>;

/** Cost and tokens so far, of one story (all its runs) or of the run. */
const spendSchema = z.object({ costUsd: z.number(), tokens: tokenCountsSchema });
export type Spend = z.infer<typeof spendSchema>;

/** What ralph waits for: the hourly call/token window, a usage-limit reset, a retry backoff. */
const waitReasonSchema = z.enum(WAIT_REASONS);
export type WaitReason = z.infer<typeof waitReasonSchema>;

/** ISO 8601 time of the event. */
const at = z.string();
const count = z.number();

const runStarted = z.object({
  type: z.literal('run_started'),
  at,
  loopDir: z.string(),
  feature: z.string(),
  /** The iteration this run starts after (0 for a new run, N when resuming). */
  resumedAfterIteration: count,
  /**
   * The loop directory's iteration count as this run starts: numbering goes on from it,
   * resumed or not, so no run ever reuses an earlier run's iteration numbers (and logs).
   */
  iteration: count,
  maxIterations: count,
  storiesTotal: count,
  storiesPassing: count,
  costUsd: z.number(),
  tokens: tokenCountsSchema.optional(),
  breaker: breakerSnapshotSchema.optional(),
  /** The agent calls and tokens allowed per hour (undefined: no limit). */
  rateLimit: z
    .object({ callsPerHour: z.number().optional(), tokensPerHour: z.number().optional() })
    .optional(),
});

const iterationStarted = z.object({
  type: z.literal('iteration_started'),
  at,
  iteration: count,
  attempt: count,
  story: storyRefSchema,
  model: z.string().optional(),
  logFile: z.string(),
  promptBytes: count,
});

/** The agent's init line: the session and the model it actually runs (not just the one asked). */
const agentStarted = z.object({
  type: z.literal('agent_started'),
  at,
  iteration: count,
  attempt: count,
  sessionId: z.string().optional(),
  model: z.string().optional(),
});

const agentToolUse = z.object({
  type: z.literal('agent_tool_use'),
  at,
  iteration: count,
  name: z.string(),
  summary: z.string(),
});

const agentText = z.object({
  type: z.literal('agent_text'),
  at,
  iteration: count,
  text: z.string(),
});

const iterationFinished = z.object({
  type: z.literal('iteration_finished'),
  at,
  iteration: count,
  attempt: count,
  story: storyRefSchema,
  outcome: iterationOutcomeSchema,
  /** Why, for a person: "story complete", "exit code 1: API Error: 529 …", … */
  detail: z.string(),
  /** The promise the agent printed in its final message, if any. */
  signal: z.enum(['STORY_COMPLETE', 'COMPLETE', 'custom']).optional(),
  newlyPassing: z.array(z.string()),
  storiesPassing: count,
  storiesTotal: count,
  sessionId: z.string().optional(),
  model: z.string().optional(),
  costUsd: z.number().optional(),
  usage: tokenCountsSchema.optional(),
  numTurns: count.optional(),
  exitCode: z.number().optional(),
  durationMs: z.number(),
  /** How the attempt ended for the safety policies (inspect shows the same). */
  classification: z.enum(CLASSIFICATION_KINDS).optional(),
  classificationWhy: z.string().optional(),
  /** Another attempt of this iteration follows (a retry, or after a usage-limit wait). */
  willRetry: z.boolean().optional(),
  /** Set on an iteration's last attempt: the breaker after counting it. */
  breaker: breakerSnapshotSchema.optional(),
  /** Totals after this attempt: the story over all its runs, and this run. */
  storySpend: spendSchema.optional(),
  runSpend: spendSchema.optional(),
  /** Agent calls in the last hour, this one included. */
  callsLastHour: count.optional(),
  /** Tool calls refused in this attempt (the guard's denials included), by tool name. */
  deniedTools: z.array(z.string()).optional(),
});

const breakerChanged = z.object({
  type: z.literal('breaker_changed'),
  at,
  from: breakerPositionSchema,
  to: breakerPositionSchema,
  reason: z.string(),
  breaker: breakerSnapshotSchema,
});

const waitStarted = z.object({
  type: z.literal('wait_started'),
  at,
  reason: waitReasonSchema,
  /** ISO time the wait ends: a countdown is `until - now`. */
  until: z.string(),
  durationMs: z.number(),
  detail: z.string(),
  /** The iteration and attempt that will run after the wait, when there is one. */
  iteration: count.optional(),
  attempt: count.optional(),
});

const waitProgress = z.object({
  type: z.literal('wait_progress'),
  at,
  reason: waitReasonSchema,
  until: z.string(),
  remainingMs: z.number(),
});

const waitFinished = z.object({
  type: z.literal('wait_finished'),
  at,
  reason: waitReasonSchema,
  interrupted: z.boolean(),
});

const usageLimit = z.object({
  type: z.literal('usage_limit'),
  at,
  iteration: count,
  attempt: count,
  source: z.string(),
  message: z.string(),
  /** ISO time the limit resets, when known. */
  resetAt: z.string().optional(),
  window: z.string().optional(),
  /** What ralph does: per --on-usage-limit, or the answer when it asked. */
  action: z.enum(['wait', 'exit']),
  /** --on-usage-limit ask: whether a person answered (false: no answer in time, or no TTY). */
  answered: z.boolean().optional(),
});

const budgetExceeded = z.object({
  type: z.literal('budget_exceeded'),
  at,
  scope: z.enum(['run', 'story']),
  storyId: z.string().optional(),
  spentUsd: z.number(),
  limitUsd: z.number(),
  message: z.string(),
});

const taskListRestored = z.object({
  type: z.literal('task_list_restored'),
  at,
  iteration: count,
  /** What the agent did that it may not do (e.g. "removed STORY-003"). */
  problems: z.array(z.string()),
  /** Legitimate passes/notes changes that were kept. */
  kept: z.array(z.string()),
  /**
   * Restored at the start of a later run: ralph was stopped (killed) while this iteration's agent
   * ran, and the task list it left was torn or invalid (core/task-list-recovery.ts).
   */
  atRunStart: z.boolean().optional(),
});

const completeNotBelieved = z.object({
  type: z.literal('complete_not_believed'),
  at,
  iteration: count,
  openStories: z.array(z.string()),
});

/** One check ralph ran on a claimed story, as events show it (evidence.jsonl has the full line). */
const checkResultSchema = z.object({
  kind: z.enum(['verify', 'quality', 'integrity']),
  name: z.string().optional(),
  command: z.string().optional(),
  exitCode: z.number().optional(),
  timedOut: z.boolean().optional(),
  durationMs: z.number(),
});

/** The agent claimed a story, ralph's checks failed, and `passes` went back to false. */
const storyRejected = z.object({
  type: z.literal('story_rejected'),
  at,
  iteration: count,
  story: storyRefSchema,
  /** The check that failed (the first one; later ones did not run). */
  failed: checkResultSchema,
  /** Why, for a person: "`npm test` failed (exit 1)", "deleted test file a.test.js". */
  reason: z.string(),
  /** The tail of the failing command's output, or the integrity problems, one per line. */
  outputTail: z.string(),
  /** How often this story has been rejected in this loop directory, this time included. */
  rejections: count.optional(),
});

/** The agent claimed a story and every check ralph ran on it passed. */
const storyVerified = z.object({
  type: z.literal('story_verified'),
  at,
  iteration: count,
  story: storyRefSchema,
  checks: z.array(checkResultSchema),
  commit: z.string().optional(),
});

/**
 * Claude Code is retrying an API request (its `system/api_retry` line): shown within seconds, so
 * a run with the network down does not sit silent for minutes.
 */
const agentRetry = z.object({
  type: z.literal('agent_retry'),
  at,
  iteration: count,
  attempt: count,
  /** Claude Code's own retry count, and its limit (CLAUDE_CODE_MAX_RETRIES, 10 by default). */
  retry: count.optional(),
  maxRetries: count.optional(),
  delayMs: z.number().optional(),
  errorStatus: z.number().optional(),
  /** rate_limit, overloaded, server_error, authentication_failed, unknown, … */
  error: z.string().optional(),
});

/** One usage window (five_hour, seven_day, …) as Claude Code last reported it. */
const usageWindowSchema = z.object({
  /** 0–1, when reported. */
  utilization: z.number().optional(),
  resetsAt: z.string().optional(),
  status: z.string().optional(),
});
export type UsageWindowView = z.infer<typeof usageWindowSchema>;

/** The subscription's usage windows after an attempt that reported them (or at a pacing wait). */
const usageWindows = z.object({
  type: z.literal('usage_windows'),
  at,
  windows: z.record(z.string(), usageWindowSchema),
  /** limits.pace, when pacing is on. */
  pace: z.number().optional(),
});

const warning = z.object({ type: z.literal('warning'), at, message: z.string() });

const runFinished = z.object({
  type: z.literal('run_finished'),
  at,
  state: runStateSchema.exclude(['RUNNING']),
  reason: z.string(),
  stopReason: stopReasonSchema.optional(),
  /** What to do about it, when the person has to act (fatal errors, the breaker, budget). */
  hint: z.string().optional(),
  exitCode: z.number(),
  iterations: count,
  storiesPassing: count,
  storiesTotal: count,
  costUsd: z.number(),
  tokens: tokenCountsSchema.optional(),
});

export const loopEventSchema = z.discriminatedUnion('type', [
  runStarted,
  iterationStarted,
  agentStarted,
  agentToolUse,
  agentText,
  iterationFinished,
  breakerChanged,
  waitStarted,
  waitProgress,
  waitFinished,
  usageLimit,
  budgetExceeded,
  taskListRestored,
  completeNotBelieved,
  storyRejected,
  storyVerified,
  agentRetry,
  usageWindows,
  warning,
  runFinished,
]);

export type LoopEvent = z.infer<typeof loopEventSchema>;
export type LoopEventType = LoopEvent['type'];

/** Receives every event in order. A reporter that throws stops the run (state must not be lost). */
export interface Reporter {
  onEvent(event: LoopEvent): void | Promise<void>;
  /** Called once after run_finished (flush files, stop timers). */
  close?(): void | Promise<void>;
}
