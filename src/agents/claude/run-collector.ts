import type { AgentResultLine, RateLimitInfo, ToolCall } from '../types.js';
import type { ParsedLine } from './stream-parser.js';

/**
 * Folds one agent run's parsed lines into what the loop needs (the AgentRunResult fields that
 * come from output). It keeps a constant amount per line — the latest values, not the lines —
 * except the tool-call list, which is capped.
 */

export interface CollectedRun {
  sessionId: string | undefined;
  model: string | undefined;
  /** The last text block of the agent's own (not a sub-agent's) assistant messages. */
  finalText: string | undefined;
  /** The `error` of the last assistant line, when it had one (Claude Code's API errors). */
  assistantError: string | undefined;
  toolCalls: ToolCall[];
  /** Tool calls beyond the cap, counted but not kept. */
  droppedToolCalls: number;
  /** The most recent rate_limit events (capped; the latest are what a limit decision needs). */
  rateLimits: RateLimitInfo[];
  /** The last result line; undefined when the run was cut before printing one. */
  result: AgentResultLine | undefined;
  lineCount: number;
}

export interface RunCollector {
  add(line: ParsedLine): void;
  /** The run so far; arrays are copies, safe to keep. */
  collected(): CollectedRun;
}

export interface RunCollectorOptions {
  maxToolCalls?: number;
  maxRateLimits?: number;
}

export function createRunCollector(options: RunCollectorOptions = {}): RunCollector {
  const maxToolCalls = options.maxToolCalls ?? 1000;
  const maxRateLimits = options.maxRateLimits ?? 100;
  let initSessionId: string | undefined;
  let initModel: string | undefined;
  let seenSessionId: string | undefined;
  let seenModel: string | undefined;
  let finalText: string | undefined;
  let assistantError: string | undefined;
  let result: AgentResultLine | undefined;
  let lineCount = 0;
  let droppedToolCalls = 0;
  const toolCalls: ToolCall[] = [];
  const rateLimits: RateLimitInfo[] = [];

  return {
    add(line) {
      lineCount += 1;
      // init is authoritative; other lines stand in when a log starts mid-run or init is missing.
      seenSessionId ??= line.sessionId;
      seenModel ??= line.model;
      if (line.parentToolUseId === undefined && line.events.some((each) => each.type === 'text')) {
        // Only the agent's own last message says how it ended: a later normal one clears it.
        assistantError = line.assistantError;
      }
      for (const event of line.events) {
        switch (event.type) {
          case 'init':
            initSessionId ??= event.sessionId;
            initModel ??= event.model;
            break;
          case 'text':
            if (line.parentToolUseId === undefined) finalText = event.text;
            break;
          case 'tool_use':
            // Text followed by a tool call is a step, not the agent's last word: a cut run whose
            // last message was a tool call has no final message for a promise to count in.
            if (line.parentToolUseId === undefined) finalText = undefined;
            if (toolCalls.length < maxToolCalls) toolCalls.push(event.call);
            else droppedToolCalls += 1;
            break;
          case 'rate_limit':
            if (rateLimits.length >= maxRateLimits) rateLimits.shift();
            rateLimits.push(event.info);
            break;
          case 'result':
            result = event.summary;
            break;
          default:
            break;
        }
      }
    },
    collected() {
      return {
        sessionId: initSessionId ?? seenSessionId ?? result?.sessionId,
        model: initModel ?? seenModel,
        finalText,
        assistantError,
        toolCalls: [...toolCalls],
        droppedToolCalls,
        rateLimits: [...rateLimits],
        result,
        lineCount,
      };
    },
  };
}
