/**
 * Claude Code `-p --output-format stream-json --verbose` lines for the fake `claude`, shaped
 * like the real ones quoted in agent-outputs.md §3.1 (same envelopes and field names, fewer of
 * the fields ralph does not read). Each test gives its runs their own session ids, so what ralph
 * recorded can be traced back to the run that printed it.
 */

export const MODEL = 'claude-sonnet-5-5';

export function initLine(session: string, model = MODEL): string {
  return JSON.stringify({
    type: 'system',
    subtype: 'init',
    cwd: '/repo',
    session_id: session,
    tools: ['Bash', 'Edit', 'Read', 'Write'],
    mcp_servers: [],
    model,
    permissionMode: 'acceptEdits',
    apiKeySource: 'ANTHROPIC_API_KEY',
    claude_code_version: '2.1.330',
    output_style: 'default',
  });
}

function assistant(session: string, content: unknown[], model = MODEL): string {
  return JSON.stringify({
    type: 'assistant',
    message: {
      model,
      id: `msg_${session.slice(0, 8)}`,
      type: 'message',
      role: 'assistant',
      content,
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
    parent_tool_use_id: null,
    session_id: session,
  });
}

export function textLine(session: string, text: string): string {
  return assistant(session, [{ type: 'text', text }]);
}

export function toolUseLine(session: string, id: string, name: string, input: object): string {
  return assistant(session, [{ type: 'tool_use', id, name, input }]);
}

export function toolResultLine(session: string, id: string, content: string): string {
  return JSON.stringify({
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content }] },
    parent_tool_use_id: null,
    session_id: session,
  });
}

export function resultLine(
  session: string,
  result: string,
  options: { costUsd?: number; isError?: boolean; numTurns?: number } = {},
): string {
  return JSON.stringify({
    type: 'result',
    subtype: 'success',
    is_error: options.isError ?? false,
    api_error_status: null,
    duration_ms: 1200,
    num_turns: options.numTurns ?? 2,
    result,
    stop_reason: 'end_turn',
    session_id: session,
    total_cost_usd: options.costUsd ?? 0.01,
    usage: {
      input_tokens: 40,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 300,
      output_tokens: 20,
    },
    permission_denials: [],
  });
}

/** Lines as the agent prints them: newline-terminated. */
export function jsonl(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** A whole, ordinary run: init, one tool call, the final message, the result line. */
export function finishedRun(session: string, finalText: string, costUsd = 0.01): string {
  return jsonl(
    initLine(session),
    toolUseLine(session, `toolu_${session}`, 'Bash', { command: 'npm test' }),
    toolResultLine(session, `toolu_${session}`, 'Tests: 4 passed'),
    textLine(session, finalText),
    resultLine(session, finalText, { costUsd }),
  );
}
