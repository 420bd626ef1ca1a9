import { runFailed, TIMEOUT_EXIT_CODE, type RunEvidence } from './evidence.js';
import { hardFatal, softFatal, transientFailure, type FatalAdvice } from './failures.js';
import { detectUsageLimit, type ClassifyContext, type UsageLimit } from './limits.js';

/**
 * How one agent run ended, for the loop to act on and `ralph inspect` to explain. Order matters:
 * ralph's own kill (a timeout) is decided first and is never a usage limit; fatal errors that
 * need a person (login, key, admin) beat a usage limit (an admin-disabled account can come with
 * a rejected rate-limit event); a usage limit beats running out of credits (extra usage that ran
 * out comes back at the window's reset) and a transient error (its 429 would otherwise be
 * retried within seconds).
 */
export type RunClassification =
  | { kind: 'none'; why: string }
  | { kind: 'timeout'; why: string; idle: boolean }
  | { kind: 'usage_limit'; why: string; limit: UsageLimit }
  | { kind: 'transient'; why: string }
  | { kind: 'fatal'; why: string; hint: string; advice: FatalAdvice };

export type ClassificationKind = RunClassification['kind'];

export function classifyRun(evidence: RunEvidence, context: ClassifyContext): RunClassification {
  if (evidence.canceled) return { kind: 'none', why: 'stopped by the user' };
  if (evidence.timedOut || evidence.exitCode === TIMEOUT_EXIT_CODE) {
    const idle = evidence.idleTimedOut === true;
    return {
      kind: 'timeout',
      idle,
      why: evidence.timedOut
        ? idle
          ? 'ralph killed the agent: no output for the idle timeout'
          : 'ralph killed the agent: the iteration ran past its time limit'
        : `exit code ${TIMEOUT_EXIT_CODE}: a timeout wrapper killed the agent`,
    };
  }
  const fatal = hardFatal(evidence);
  if (fatal !== undefined) return fatal;
  const limit = detectUsageLimit(evidence, context);
  if (limit !== undefined) {
    const reset =
      limit.resetAt === undefined ? 'reset time unknown' : `resets ${limit.resetAt.toISOString()}`;
    return {
      kind: 'usage_limit',
      limit,
      why: `usage limit (${describeSource(limit.source)}; ${reset}): ${limit.message}`,
    };
  }
  const failure = softFatal(evidence) ?? transientFailure(evidence);
  if (failure !== undefined) return failure;
  return {
    kind: 'none',
    why: runFailed(evidence)
      ? 'the agent failed, but not in a way a retry or a wait would fix'
      : 'the agent ran to its end',
  };
}

function describeSource(source: UsageLimit['source']): string {
  switch (source) {
    case 'rate_limit_event':
      return 'a rejected rate_limit_event';
    case 'result':
      return 'the result text';
    case 'final_text':
      return "the agent's final message";
    case 'stderr':
      return 'stderr';
  }
}
