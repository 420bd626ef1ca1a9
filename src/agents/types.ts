/**
 * The port between the loop and an agent CLI. Each agent (Claude Code first) lives in its own
 * folder under src/agents/ and is reached only through these types; the engine never sees argv,
 * processes or stream formats.
 */

export type AgentId = 'claude';

/** What preflight needs to know about an agent before a run: is it installed, which version. */
export interface AgentProbeResult {
  agent: AgentId;
  /** The executable ralph would start (after RALPH_CLAUDE_BIN / config / PATH). */
  command: string;
  found: boolean;
  version: string | undefined;
  /** Why the agent could not be used, for the person reading preflight output. */
  problem: string | undefined;
}

export interface AgentProbe {
  probe(): Promise<AgentProbeResult>;
  /**
   * Why the agent could not give a story these MCP servers (e.g. one is configured nowhere),
   * or undefined when it can: preflight asks before a run instead of failing mid-run.
   */
  mcpServersProblem?(names: readonly string[], cwd: string): string | undefined;
}

/** How much the agent may do without asking; unattended loops cannot answer prompts. */
export type PermissionMode =
  | { kind: 'skip' } // --dangerously-skip-permissions
  | { kind: 'mode'; mode: 'default' | 'acceptEdits' | 'bypassPermissions' | 'dontAsk' | 'plan' };

export interface AgentRunRequest {
  prompt: string;
  /** The repository the agent works in. */
  cwd: string;
  model: string | undefined;
  /** undefined = the user's own MCP config; [] = no MCP servers; names = only those. */
  mcpServers: readonly string[] | undefined;
  permission: PermissionMode;
  /** Claude Code settings JSON passed with --settings (hooks), when ralph adds any. */
  settings: Record<string, unknown> | undefined;
  /** The environment of the child, before the adapter removes what must not leak (CLAUDECODE). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where every raw output line goes, untouched (logs/iteration-N-attempt-M.jsonl). */
  logFile: string;
  /** Wall-clock limit; the whole process tree is killed when it passes. */
  timeoutMs: number;
  /** Kill the tree when the agent prints nothing for this long (default: the adapter's own). */
  idleTimeoutMs?: number | undefined;
  /**
   * Kill the tree when the agent printed its result line but has not exited this long after
   * (default: the adapter's own). The run still counts by its result.
   */
  resultGraceMs?: number | undefined;
  /** Output lines longer than this are cut (default: DEFAULT_MAX_LINE_BYTES, 1 MiB). */
  maxLineBytes?: number | undefined;
  /** Aborting kills the whole process tree (SIGTERM, then SIGKILL after a grace period). */
  signal: AbortSignal;
  /** Called for every parsed output line as it arrives (monitor, verbose output). */
  onEvent?: (event: AgentEvent) => void;
}

export interface ToolCall {
  id: string | undefined;
  name: string;
  /** A one-line summary of the input (a command, a file path), never the whole content. */
  summary: string;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
}

export interface PermissionDenial {
  toolName: string;
  toolUseId: string | undefined;
}

/** A rate_limit_event line: `status` "allowed" is informational, "rejected" means a usage limit. */
export interface RateLimitInfo {
  status: string;
  /** Epoch milliseconds, normalised from the line's seconds or milliseconds. */
  resetsAt: number | undefined;
  rateLimitType: string | undefined;
  /** How much of the named window is used, 0–1, when the event says. */
  utilization?: number | undefined;
  /** Extra usage (overage): its status and why it is off ("out_of_credits", …). */
  overageStatus?: string | undefined;
  overageDisabledReason?: string | undefined;
  isUsingOverage?: boolean | undefined;
  /** Every window the event reports (five_hour, seven_day, …): its use and reset. */
  windows?: Readonly<Record<string, UsageWindowReading>> | undefined;
}

/** One usage window as a rate_limit_event reports it. */
export interface UsageWindowReading {
  /** 0–1. */
  utilization: number | undefined;
  /** Epoch milliseconds. */
  resetsAt: number | undefined;
  status: string | undefined;
}

/** One parsed line of agent output; lines the parser does not know are kept as `unknown`. */
export type AgentEvent =
  | {
      type: 'init';
      sessionId: string | undefined;
      model: string | undefined;
      version: string | undefined;
    }
  | { type: 'text'; text: string }
  /** The model's thinking (a `thinking` block; '' when Claude Code sent it redacted). */
  | { type: 'thinking'; text: string }
  | { type: 'tool_use'; call: ToolCall }
  | { type: 'tool_result'; toolUseId: string | undefined; isError: boolean; text: string }
  | { type: 'rate_limit'; info: RateLimitInfo }
  | {
      type: 'api_retry';
      attempt: number | undefined;
      maxRetries: number | undefined;
      /** How long Claude Code waits before this attempt. */
      delayMs: number | undefined;
      errorStatus: number | undefined;
      error: string | undefined;
    }
  | { type: 'result'; summary: AgentResultLine }
  | { type: 'unknown'; raw: string };

/** The fields of Claude Code's final `result` line that the loop uses. */
export interface AgentResultLine {
  subtype: string | undefined;
  isError: boolean;
  apiErrorStatus: number | undefined;
  resultText: string | undefined;
  sessionId: string | undefined;
  costUsd: number | undefined;
  numTurns: number | undefined;
  usage: TokenUsage | undefined;
  permissionDenials: PermissionDenial[];
  durationMs: number | undefined;
}

/** Everything the loop learns from one agent process. */
export interface AgentRunResult {
  exitCode: number | undefined;
  /** The signal that ended the process, when one did. */
  exitSignal: string | undefined;
  timedOut: boolean;
  /** The idle limit (no output) was the one that passed; implies timedOut. */
  idleTimedOut?: boolean | undefined;
  /** Killed because it lingered after printing its result line (not a timeout, not canceled). */
  killedAfterResult?: boolean | undefined;
  /** Ended because the request's signal aborted (Ctrl+C, stop). */
  canceled: boolean;
  /** The executable could not be started (ENOENT, EACCES). */
  spawnError: string | undefined;
  sessionId: string | undefined;
  model: string | undefined;
  /** The result line, when the agent printed one (a killed or crashed agent may not). */
  result: AgentResultLine | undefined;
  /** The last assistant text block: where a completion promise counts. */
  finalText: string | undefined;
  /**
   * The `error` Claude Code put on its synthetic error message (rate_limit,
   * authentication_failed, billing_error, …), when the run ended with one.
   */
  assistantError?: string | undefined;
  toolCalls: ToolCall[];
  rateLimits: RateLimitInfo[];
  /** The last lines of stderr, for error classification and messages. */
  stderrTail: string;
  /** Output lines seen, parsed or not. */
  lineCount: number;
  durationMs: number;
}

export interface AgentAdapter extends AgentProbe {
  readonly id: AgentId;
  /** The exact argv (without the executable) a request would start; shown by --dry-run. */
  commandLine(request: Omit<AgentRunRequest, 'signal' | 'logFile' | 'onEvent'>): {
    command: string;
    args: string[];
  };
  run(request: AgentRunRequest): Promise<AgentRunResult>;
}
