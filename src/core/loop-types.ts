import type { AgentAdapter, PermissionMode, TokenUsage } from '../agents/types.js';
import type { Clock } from '../safety/clock.js';
import type { SafetySettings } from '../safety/settings.js';
import type { HookPoint } from '../state/paths.js';
import type { LoopEvent, Reporter, RunState, StopReason } from './events.js';
import type { ModelSettings } from './model-select.js';
import type { SafetySession } from './safety-session.js';

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
  /** Continue a paused or crashed run: its iteration count, cost and tokens carry over. */
  resume?: { iteration: number; costUsd: number; tokens?: TokenUsage | undefined } | undefined;
  /**
   * The last iteration number any earlier run of this loop directory reached. Numbering goes on
   * from it, so a new run never overwrites an earlier run's iteration logs.
   */
  lastIteration?: number | undefined;
  /** Things the person should know before the run starts (protected branch, lock taken over, …). */
  warnings?: readonly string[] | undefined;
  /** Whether spec.md / specs/ exist, so the prompt only names files that are there. */
  hasSpec: boolean;
  hasSpecsDir: boolean;
  /** Breaker, rate limit, budget, retries, usage limits, timeouts; DEFAULT_SAFETY when absent. */
  safety?: SafetySettings | undefined;
}

/** A person's answer to "usage limit reached: wait for the reset or exit?". */
export type UsageLimitAnswer = 'wait' | 'exit';

export interface UsageLimitQuestion {
  message: string;
  resetAt: Date | undefined;
  /** When the wait would end. */
  until: Date;
}

export interface LoopDependencies {
  agent: AgentAdapter;
  reporters: readonly Reporter[];
  clock: Clock;
  signal: AbortSignal;
  /** [0, 1): the retry backoff's jitter. Default Math.random. */
  random?: (() => number) | undefined;
  /** The zone for reset times a limit message names none for. Default: this machine's. */
  timeZone?: string | undefined;
  /**
   * `--on-usage-limit ask`: asks a person (on a terminal). The engine stops asking after the
   * configured timeout (aborting `signal`) and exits; without this function it exits at once.
   */
  askUsageLimit?:
    ((question: UsageLimitQuestion, signal: AbortSignal) => Promise<UsageLimitAnswer>) | undefined;
  /** The person's hook scripts (`hooks/<point>.sh`); none are run without it. */
  hooks?: UserHookRunner | undefined;
}

export interface LoopResult {
  state: Exclude<RunState, 'RUNNING'>;
  reason: string;
  stopReason: StopReason;
  hint?: string | undefined;
  exitCode: number;
  iterations: number;
  costUsd: number;
}

/** How a run ends, decided somewhere inside the loop and carried out by the engine. */
export interface Stop {
  state: Exclude<RunState, 'RUNNING'>;
  reason: string;
  stopReason: StopReason;
  exitCode: number;
  hint?: string | undefined;
}

export const interrupted = (during: string): Stop => ({
  state: 'PAUSED',
  reason: `interrupted${during === '' ? '' : ` ${during}`}`,
  stopReason: 'interrupted',
  exitCode: 130,
});

/** What the engine and attempt.ts share for one run. */
export interface LoopContext {
  options: LoopOptions;
  deps: LoopDependencies;
  settings: SafetySettings;
  safety: SafetySession;
  emit(event: LoopEvent): Promise<void>;
  /** The clock's now as ISO 8601. */
  at(): string;
  /** The run's totals so far (a resumed run starts from the paused one's). */
  run: { costUsd: number; tokens: TokenUsage };
  /**
   * The zone for reset times that name none, looked up on first use: Intl's first zone lookup
   * costs 10-17 ms, and only a usage-limit message needs it.
   */
  timeZone(): string;
  random: () => number;
}

/** The person's hook scripts (`hooks/<point>.sh`) as the engine sees them: a port the CLI fills. */
export type UserHookVariables = Record<string, string>;

export interface UserHookRunner {
  /**
   * Runs the hook for `point` when the person wrote one. Resolves with what went wrong (exit
   * code, timeout), or undefined when it ran fine or there is none. `urgent`: the run is being
   * interrupted, so the hook gets only a few seconds; so does a hook still running when
   * `signal` aborts (Ctrl+C, `ralph stop`).
   */
  run(
    point: HookPoint,
    variables: UserHookVariables,
    urgent: boolean,
    signal: AbortSignal,
  ): Promise<string | undefined>;
}
