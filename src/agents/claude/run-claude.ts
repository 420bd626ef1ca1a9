import { spawnStreaming } from '../spawn.js';
import type { StreamingResult } from '../spawn.js';
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

export interface RunClaudeOptions {
  killGraceMs?: number;
  /** Kill an agent that prints nothing for this long (none by default: tools can be silent). */
  idleTimeoutMs?: number;
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
  let spawned: StreamingResult;
  try {
    spawned = await spawnStreaming(command, args, {
      cwd: request.cwd,
      env: childEnv(request.env),
      timeoutMs: request.timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      killGraceMs: options.killGraceMs ?? CLAUDE_KILL_GRACE_MS,
      signal: request.signal,
      // Whole chunks go to the log: byte-exact (a last line without newline stays so) and far
      // fewer writes than line by line.
      onChunk: (chunk) => log.write(chunk),
      onLine: (line) => {
        const parsed = parseStreamLine(line);
        collector.add(parsed);
        const { onEvent } = request;
        if (onEvent !== undefined) for (const event of parsed.events) onEvent(event);
      },
      onStderr: (chunk) => {
        stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      },
    });
  } catch (error) {
    await log.close().catch(() => undefined); // the first error is the one worth reporting
    throw error;
  }
  await log.close();
  const run = collector.collected();
  return {
    exitCode: spawned.exitCode,
    exitSignal: spawned.exitSignal,
    timedOut: spawned.timedOut,
    canceled: spawned.canceled,
    spawnError: spawned.spawnError,
    sessionId: run.sessionId,
    model: run.model,
    result: run.result,
    finalText: run.finalText,
    toolCalls: run.toolCalls,
    rateLimits: run.rateLimits,
    stderrTail,
    lineCount: run.lineCount,
    durationMs: spawned.durationMs,
  };
}
