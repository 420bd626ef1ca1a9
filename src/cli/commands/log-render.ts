import { parseStreamLine } from '../../agents/claude/stream-parser.js';
import type { AgentEvent } from '../../agents/types.js';
import { duration, money, oneLine } from '../../monitor/view/describe.js';

/**
 * Iteration logs and the audit log, rendered for a person: `ralph logs` prints these lines and
 * the web dashboard shows them (it gets this renderer injected, as the monitor layer must not
 * know the agent's output format). Every raw line becomes zero or more display lines.
 */
export type LineRenderer = (raw: string) => string[];

export const renderAgentLine: LineRenderer = (raw) => {
  if (raw.trim() === '') return [];
  const parsed = parseStreamLine(raw);
  const nested = parsed.parentToolUseId === undefined ? '' : '  ';
  return parsed.events.flatMap((event) => renderEvent(event, raw).map((line) => nested + line));
};

function renderEvent(event: AgentEvent, raw: string): string[] {
  switch (event.type) {
    case 'init':
      return [
        `● session ${event.sessionId ?? '?'} · model ${event.model ?? '?'}${
          event.version === undefined ? '' : ` · Claude Code ${event.version}`
        }`,
      ];
    case 'text':
      return event.text
        .trim()
        .split('\n')
        .map((line, i) => (line.trim() === '' ? '' : `${i === 0 ? '“ ' : '  '}${line}`));
    case 'thinking':
      // The model's reasoning can run to pages: one shortened line says it thought, and what of.
      return [`∴ thinking: ${event.text.trim() === '' ? '(redacted)' : oneLine(event.text, 120)}`];
    case 'tool_use':
      return [`→ ${event.call.name} ${event.call.summary}`];
    case 'tool_result': {
      const lines = event.text.trim().split('\n');
      const first = oneLine(lines[0] ?? '', 160);
      const more = lines.length > 1 ? ` (+${lines.length - 1} lines)` : '';
      return [`  ${event.isError ? '✗' : '←'} ${first}${more}`];
    }
    case 'rate_limit':
      return [
        `◆ rate limit ${event.info.status}${
          event.info.resetsAt === undefined
            ? ''
            : `, resets ${new Date(event.info.resetsAt).toISOString()}`
        }`,
      ];
    case 'api_retry':
      return [
        `◆ API retry ${event.attempt ?? '?'}${event.errorStatus === undefined ? '' : ` (${event.errorStatus})`}${
          event.error === undefined ? '' : `: ${oneLine(event.error, 120)}`
        }`,
      ];
    case 'result': {
      const s = event.summary;
      const parts = [
        s.subtype ?? 'result',
        s.isError ? 'error' : undefined,
        s.apiErrorStatus === undefined ? undefined : `API ${s.apiErrorStatus}`,
        s.numTurns === undefined ? undefined : `${s.numTurns} turns`,
        s.costUsd === undefined ? undefined : money(s.costUsd),
        s.durationMs === undefined ? undefined : duration(s.durationMs),
      ].filter((part) => part !== undefined);
      const text = s.resultText === undefined ? [] : [`  ${oneLine(s.resultText, 300)}`];
      return [`■ result: ${parts.join(' · ')}`, ...text];
    }
    case 'unknown':
      return [`  · ${oneLine(raw, 160)}`];
  }
}

/** A guard decision (logs/audit.jsonl), read by field name so any version's lines render. */
export const renderAuditLine: LineRenderer = (raw) => {
  if (raw.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return [raw];
  }
  if (typeof value !== 'object' || value === null) return [raw];
  const record = value as Record<string, unknown>;
  const pick = (...keys: string[]): string | undefined => {
    for (const key of keys) {
      const field = record[key];
      if (typeof field === 'string' && field !== '') return field;
    }
    return undefined;
  };
  const at = pick('at', 'time', 'timestamp', 'ts');
  const decision = pick('decision', 'verdict', 'permissionDecision', 'action') ?? '?';
  const tool = pick('tool', 'toolName', 'tool_name') ?? '';
  const what = pick('summary', 'command', 'path', 'file_path', 'input') ?? '';
  const reason = pick('reason', 'rule', 'message');
  return [
    `${at ?? ''}${at === undefined ? '' : ' '}${decision.toUpperCase().padEnd(5)} ${tool} ${oneLine(what, 160)}${
      reason === undefined ? '' : ` — ${oneLine(reason, 160)}`
    }`.trim(),
  ];
};
