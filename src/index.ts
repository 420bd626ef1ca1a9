/**
 * The package's public surface (design.md §7): a whole run (`startRun`), the loop alone
 * (`runLoop`, for callers that bring their own lock, guard and reporters), and the task-list
 * reader and writer. Everything here takes its inputs from its options — no process.env,
 * process.on or stdout — so many runs can live in one process.
 */
export { startRun, launchRun, type RunResult } from './run/start-run.js';
export { planRun, type RunPlan } from './run/plan.js';
export { type RunOptions } from './run/options.js';
export type { CodeHook, CodeHooks, HookVariables } from './hooks/code-hooks.js';
export {
  runLoop,
  type CheckRun,
  type CheckRunner,
  type VerificationSettings,
  type LoopDependencies,
  type LoopOptions,
  type LoopResult,
  type UsageLimitAnswer,
  type UsageLimitQuestion,
} from './core/engine.js';
export { checkRunner } from './run/check-runner.js';
export { loopEventSchema } from './core/events.js';
export { evidenceEntrySchema, readEvidence, type EvidenceEntry } from './state/evidence-log.js';
export type {
  LoopEvent,
  LoopEventType,
  Reporter,
  RunState,
  StopReason,
  IterationOutcome,
} from './core/events.js';
export {
  readTaskListFile as readTaskList,
  parseTaskList,
  type TaskListDocument,
} from './plan/read.js';
export {
  writeTaskListFile as writeTaskList,
  updateStories,
  applyStoryEdits,
  type StoryChange,
  type StoryEdit,
} from './plan/write.js';
export type { Story, TaskList, TaskListFormat } from './plan/types.js';
export { nextStory, summarise } from './plan/order.js';
export { createProcessGroups, type ProcessGroups } from './agents/process-groups.js';
export type { AgentAdapter, AgentEvent, AgentRunRequest, AgentRunResult } from './agents/types.js';
export { systemClock, type Clock } from './safety/clock.js';
export { RalphError, type ErrorCode } from './util/errors.js';
export { verifyFeature, type VerifyOptions, type VerifyResult } from './run/verify.js';
export {
  debugProblem,
  type DebugOptions,
  type DebugResult,
  type DebugOutcome,
} from './run/debug.js';
export type { StubFinding, StubKind } from './run/stub-scan.js';
export type { ChangeScan } from './run/changed-files.js';
export type { VerifyStatus, VerifyVerdict, DebugState, DebugStatus } from './run/verdict.js';
