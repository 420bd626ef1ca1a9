/**
 * What the safety policies read of one agent run. The agent port's AgentRunResult has these
 * fields (safety does not import the agents layer; the type is matched structurally), and
 * `ralph inspect` builds one from a log file and events.jsonl.
 */
export interface RunEvidence {
  /** undefined when a signal ended the process, or when it is not known (a log alone). */
  exitCode: number | undefined;
  exitSignal?: string | undefined;
  /** ralph's own wall-clock or idle limit killed the agent. */
  timedOut: boolean;
  idleTimedOut?: boolean | undefined;
  canceled: boolean;
  /** Killed for lingering after its result line: the result decides how it ended. */
  killedAfterResult?: boolean | undefined;
  /** The executable could not be started (ENOENT, EACCES). */
  spawnError: string | undefined;
  result:
    | {
        isError: boolean;
        subtype: string | undefined;
        apiErrorStatus: number | undefined;
        resultText: string | undefined;
      }
    | undefined;
  /** The agent's own last text block (never a tool result, never the prompt). */
  finalText: string | undefined;
  /** The `error` of Claude Code's synthetic error message (rate_limit, billing_error, …). */
  assistantError?: string | undefined;
  rateLimits: readonly RateLimitEvidence[];
  stderrTail: string;
  /** Output lines seen; 0 means the agent printed nothing at all. */
  lineCount: number;
}

export interface RateLimitEvidence {
  status: string;
  /** Epoch milliseconds. */
  resetsAt: number | undefined;
  rateLimitType: string | undefined;
  /** Extra usage (overage) status and why it is off, when the event says. */
  overageStatus?: string | undefined;
  overageDisabledReason?: string | undefined;
}

/** `timeout(1)`'s exit code: a wrapper killed the agent, whatever it printed. */
export const TIMEOUT_EXIT_CODE = 124;

/** Did the run end in failure (as opposed to running to its normal end)? */
export function runFailed(evidence: RunEvidence): boolean {
  if (evidence.spawnError !== undefined || evidence.timedOut) return true;
  if (evidence.result?.isError === true) return true;
  if (evidence.killedAfterResult === true && evidence.result !== undefined) return false;
  if (evidence.exitSignal !== undefined) return true;
  return evidence.exitCode !== undefined && evidence.exitCode !== 0;
}

/** The texts the agent itself produced about how it ended, where error messages appear. */
export function ownTexts(evidence: RunEvidence): { source: TextSource; text: string }[] {
  const texts: { source: TextSource; text: string }[] = [];
  const result = evidence.result?.resultText;
  if (result !== undefined && result.trim() !== '') texts.push({ source: 'result', text: result });
  const final = evidence.finalText;
  if (final !== undefined && final.trim() !== '' && final !== result) {
    texts.push({ source: 'final_text', text: final });
  }
  return texts;
}

export type TextSource = 'result' | 'final_text' | 'stderr';

export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  );
}
