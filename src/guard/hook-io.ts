import type { ToolCall, Verdict } from './decide.js';

/**
 * Claude Code's PreToolUse hook JSON, in and out (claude-code-facts.md §5). Checked by hand
 * rather than with zod: this runs before every tool call and zod alone costs ~45 ms to load.
 * Anything that is not the expected shape is refused — the guard fails closed.
 */

export interface PreToolUseInput extends ToolCall {
  sessionId: string | undefined;
  toolUseId: string | undefined;
  hookEventName: string | undefined;
}

export type ParsedPreToolUseInput =
  { ok: true; input: PreToolUseInput } | { ok: false; problem: string };

export function parsePreToolUseInput(text: string): ParsedPreToolUseInput {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the hook input is not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, problem: 'the hook input is not a JSON object' };
  const data = raw as Record<string, unknown>;
  const toolName = data.tool_name;
  const toolInput = data.tool_input;
  if (typeof toolName !== 'string' || toolName === '')
    return { ok: false, problem: 'the hook input has no tool_name' };
  if (typeof toolInput !== 'object' || toolInput === null || Array.isArray(toolInput))
    return { ok: false, problem: 'the hook input has no tool_input object' };
  const text_ = (key: string) => (typeof data[key] === 'string' ? data[key] : undefined);
  return {
    ok: true,
    input: {
      toolName,
      toolInput: toolInput as Record<string, unknown>,
      cwd: text_('cwd'),
      transcriptPath: text_('transcript_path'),
      sessionId: text_('session_id'),
      toolUseId: text_('tool_use_id'),
      hookEventName: text_('hook_event_name'),
    },
  };
}

/** The JSON Claude Code reads from a PreToolUse hook (command stdout or HTTP 200 body). */
export function preToolUseOutput(verdict: Pick<Verdict, 'decision' | 'reason'>): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: verdict.decision,
      permissionDecisionReason: verdict.reason,
    },
  });
}

export function failClosed(problem: string): Verdict {
  return {
    decision: 'deny',
    rule: 'bad-input',
    reason: `ralph guard: ${problem}; refused (the guard fails closed)`,
  };
}
