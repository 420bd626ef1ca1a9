import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { appendFileNoFollowSync } from '../util/no-follow.js';
import type { Decision } from './policy.js';
import { redact } from './redact.js';

/**
 * logs/audit.jsonl: one line per guard decision — time, session, tool, a short redacted
 * summary of the input, the decision and the rule that made it. Appended synchronously with
 * one write per line (O_APPEND), so lines from concurrent hook processes never interleave and
 * a decision is on disk before Claude Code hears it. The log sits where an agent may plant a
 * link in its place: a link is refused (UNSAFE_FILE), never written through, and the callers turn
 * that into a deny, so a tampered log stops the run's tool calls rather than hiding them.
 */

export interface AuditEntry {
  at: string;
  sessionId: string | undefined;
  tool: string;
  input: string;
  decision: Decision;
  rule: string;
  reason: string;
  /** Time to decide, in milliseconds. */
  ms: number;
}

const MAX_INPUT_CHARS = 500;

/** The part of a tool input worth keeping: the command, the path or the pattern. */
export function summariseInput(toolInput: Record<string, unknown>): string {
  const fields = ['command', 'file_path', 'notebook_path', 'pattern', 'path', 'glob', 'url'];
  const parts = fields.flatMap((field) => {
    const value = toolInput[field];
    return typeof value === 'string' ? [field === 'command' ? value : `${field}=${value}`] : [];
  });
  const text = redact(parts.length > 0 ? parts.join(' ') : JSON.stringify(toolInput));
  return text.length > MAX_INPUT_CHARS ? `${text.slice(0, MAX_INPUT_CHARS - 1)}…` : text;
}

export function appendAudit(file: string, entry: AuditEntry): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileNoFollowSync(file, `${JSON.stringify({ ...entry, reason: redact(entry.reason) })}\n`);
}

/** Every entry of an audit log, oldest first; lines that do not parse are skipped. */
export async function readAudit(file: string): Promise<AuditEntry[]> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  });
  return text.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as AuditEntry];
    } catch {
      return [];
    }
  });
}
