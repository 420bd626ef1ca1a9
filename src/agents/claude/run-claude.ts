import type { ProcessGroups } from '../process-groups.js';
import { DEFAULT_MAX_LINE_BYTES } from '../line-splitter.js';
import { spawnStreaming } from '../spawn.js';
import type { CommandWrapper, ProcessResult } from '../spawn.js';
import type { AgentRunRequest, AgentRunResult } from '../types.js';
import { openLogFile } from './log-file.js';
import { createRunCollector } from './run-collector.js';
import { parseStreamLine } from './stream-parser.js';

const STDERR_TAIL_CHARS = 8 * 1024;

/**
 * Variables that make Claude Code think it runs inside another Claude Code session: it then
 * refuses to start ("cannot be launched inside another Claude Code session") or reports a
 * different entrypoint. ralph is often started from a Claude Code terminal, so they must not leak.
 */
const NESTED_SESSION_VARIABLES = new Set(['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT']);

/**
 * SIGTERM → SIGKILL grace. Below spawn's 5 s default so that Ctrl+C ends the agent's whole tree
 * within 5 s even when something in it ignores SIGTERM (issue 3, item 5).
 */
export const CLAUDE_KILL_GRACE_MS = 4000;

/**
 * How long an agent may linger after printing its result line. Claude Code normally exits at
 * once; one that does not (a hook or an MCP server holding it open) is done and gets killed.
 */
export const CLAUDE_RESULT_GRACE_MS = 30_000;

export interface RunClaudeOptions {
  killGraceMs?: number;
  /**
   * Kill an agent that prints nothing for this long, unless the request sets its own (none by
   * default: tools can be silent).
   */
  idleTimeoutMs?: number;
  /** Kill an agent this long after its result line, unless the request sets its own. */
  resultGraceMs?: number;
  /** The run's live agent groups (process-groups.ts), so the run can stop its agents at once. */
  processGroups?: ProcessGroups | undefined;
  /** Runs each agent process inside something (ralph's OS sandbox). */
  wrap?: CommandWrapper | undefined;
}

export function childEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !NESTED_SESSION_VARIABLES.has(name)),
  );
}

/** Runs one Claude Code process: log its output, parse each line, report it, fold it into the result. */
export async function runClaude(
  command: string,
  args: string[],
  request: AgentRunRequest,
  options: RunClaudeOptions = {},
): Promise<AgentRunResult> {
  const log = await openLogFile(request.logFile);
  const collector = createRunCollector();
  let stderrTail = '';
  let spawned: ProcessResult;
  // The result line starts the grace period; when it ends, the tree is killed like on abort.
  const lingering = new AbortController();
  const graceMs = request.resultGraceMs ?? options.resultGraceMs ?? CLAUDE_RESULT_GRACE_MS;
  let graceTimer: NodeJS.Timeout | undefined;
  const startGrace = (): void => {
    if (graceTimer !== undefined || !(graceMs > 0 && graceMs <= 2_147_483_647)) return;
    graceTimer = setTimeout(() => {
      lingering.abort();
    }, graceMs);
  };
  try {
    spawned = await spawnStreaming(command, args, {
      cwd: request.cwd,
      env: childEnv(request.env),
      timeoutMs: request.timeoutMs,
      idleTimeoutMs: request.idleTimeoutMs ?? options.idleTimeoutMs,
      maxLineBytes: request.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      killGraceMs: options.killGraceMs ?? CLAUDE_KILL_GRACE_MS,
      processGroups: options.processGroups,
      wrap: options.wrap,
      // Never an argument: see argv.ts.
      input: request.prompt,
      signal: AbortSignal.any([request.signal, lingering.signal]),
      // Whole chunks go to the log: byte-exact (a last line without newline stays so) and far
      // fewer writes than line by line; only a line over maxLineBytes is cut, with a marker.
      onChunk: (chunk) => log.write(chunk),
      onLine: (line) => {
        const parsed = parseStreamLine(line);
        collector.add(parsed);
        if (parsed.events.some((event) => event.type === 'result')) startGrace();
        const { onEvent } = request;
        if (onEvent !== undefined) for (const event of parsed.events) onEvent(event);
      },
      onStderr: (chunk) => {
        stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      },
    });
  } catch (error) {
    clearTimeout(graceTimer);
    await log.close().catch(() => undefined); // the first error is the one worth reporting
    throw error;
  }
  clearTimeout(graceTimer);
  await log.close();
  const run = collector.collected();
  const killedAfterResult =
    spawned.isCanceled && lingering.signal.aborted && !request.signal.aborted;
  return {
    exitCode: spawned.exitCode,
    exitSignal: spawned.signal,
    timedOut: spawned.timedOut,
    idleTimedOut: spawned.idleTimedOut,
    killedAfterResult,
    canceled: spawned.isCanceled && !killedAfterResult,
    spawnError: spawned.code,
    sessionId: run.sessionId,
    model: run.model,
    result: run.result,
    finalText: run.finalText,
    assistantError: run.assistantError,
    toolCalls: run.toolCalls,
    rateLimits: run.rateLimits,
    stderrTail,
    lineCount: run.lineCount,
    durationMs: spawned.durationMs,
  };
}
