import type { AgentAdapter, PermissionMode, TokenUsage } from '../agents/types.js';
import type { Clock } from '../safety/clock.js';
import type { SafetySettings } from '../safety/settings.js';
import type { HookPoint } from '../state/paths.js';
import type { LoopEvent, Reporter, RunState, StopReason } from './events.js';
import type { MemoryPromptSettings } from './memory-section.js';
import type { ModelSettings } from './model-select.js';
import type { TestCounts } from './test-counts.js';
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
  /** completion.promise: what claims that every story passes (default `<promise>COMPLETE</promise>`). */
  completionPromise?: string | undefined;
  /** context.tokenBudget: what the prompt may hold (DEFAULT_TOKEN_BUDGET when absent). */
  tokenBudget?: number | undefined;
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
  /** How claimed stories are verified (issue 12); none of it runs when absent. */
  verification?: VerificationSettings | undefined;
  /**
   * ralph's user state dir (user-state.ts): the integrity base and test counts persist there
   * across runs. Without it they last one run.
   */
  stateDir?: string | undefined;
  /** The config files that set the checks and the guard: put back when the agent changes them. */
  configFiles?: readonly string[] | undefined;
  /** memories.md in the prompt and its upkeep (README, "Memories"); no memories when absent. */
  memory?: MemoryPromptSettings | undefined;
}

/** What ralph checks before it believes a story the agent marked passing. */
export interface VerificationSettings {
  /** name → shell command, run after every claimed story's own `verify` and before COMPLETE. */
  qualityChecks: Readonly<Record<string, string>>;
  /** Per command; 0 means no limit. */
  timeoutMs: number;
  testIntegrity: boolean;
  /** Globs, relative to the repository, of the test files integrity protects. */
  testFiles: readonly string[];
  /** Rejections after which the story's prompt leads with the failure, on a stronger model (0: never). */
  pivotAfterRejections: number;
  /** Rejections after which the story is parked and the loop moves on (0: never). */
  parkAfterRejections: number;
}

/** How one check command ended. */
export interface CheckRun {
  /** undefined when a signal (the timeout) ended it or it could not start. */
  exitCode: number | undefined;
  timedOut: boolean;
  durationMs: number;
  /** The end of what it printed (stdout and stderr, interleaved as they came). */
  output: string;
  /** How many tests its runner said passed, skipped, todo (undefined: no runner ralph knows). */
  tests?: TestCounts | undefined;
}

/**
 * The port through which the engine runs the checks and reads git (src/run/check-runner.ts
 * fills it; tests inject fakes), so core starts no process itself.
 */
export interface CheckRunner {
  /** Runs `command` with bash in `cwd`, its process group killed past `timeoutMs` (0: none). */
  shell(
    command: string,
    options: { cwd: string; timeoutMs: number; signal: AbortSignal },
  ): Promise<CheckRun>;
  /** git's stdout, or undefined when git failed (not a repository, no commit yet). */
  git(args: readonly string[], cwd: string): Promise<string | undefined>;
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
  /**
   * Runs verification commands and git. Without it a claimed story that has checks to run is
   * rejected (nothing ran them), and test integrity is not checked.
   */
  runCheck?: CheckRunner | undefined;
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
   * Where test integrity compares from (integrity-base.ts): loaded from ralph's state dir, or
   * read before the loop's first iteration, moved on only when a story is verified or the final
   * quality check passes. Tampering that was rejected, or done in an iteration that claimed
   * nothing, stays in view of every later claim (in this run and the next) instead of passing
   * with a bare re-claim.
   */
  integrityBase: {
    start?: StartPoint | undefined;
    /** Per check (`kind:command`), its runner's test counts at the last verified state. */
    tests?: Record<string, TestCounts> | undefined;
  };
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

/**
 * Where the iteration's changes start: the work tree as it was (`git stash create` records it,
 * uncommitted edits included, without touching the tree, index or refs; HEAD when it is clean)
 * and the untracked files then, so a person's own pending work is never blamed on the agent.
 */
export interface StartPoint {
  commit: string;
  untracked: ReadonlySet<string>;
  /** Untracked test files then, path → the blob ralph wrote of them (`git hash-object -w`). */
  testBlobs?: Readonly<Record<string, string>> | undefined;
  /** Executables the checks start (runner-config.ts), path → hash of what they were. */
  executables?: Readonly<Record<string, string>> | undefined;
}
