import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRunCollector } from '../../../src/agents/claude/run-collector.js';
import { parseStreamLine } from '../../../src/agents/claude/stream-parser.js';
import { classifyRun, type RunClassification } from '../../../src/safety/classify.js';
import type { RunEvidence } from '../../../src/safety/evidence.js';

/**
 * The classifier on a table of real limit, rate-limit, overload, login/key, credit and network
 * messages (test/fixtures/limits/messages.json; its README says where each row comes from and
 * what its fields mean). Each row becomes a run the way the adapter sees one: stream-json lines
 * through the real parser and collector, plus the exit code and stderr.
 */

interface Row {
  id: string;
  source: string;
  text?: string;
  ok?: boolean;
  status?: number;
  error?: string;
  subtype?: string;
  noResult?: boolean;
  noOutput?: boolean;
  stderr?: string;
  lines?: unknown[];
  exitCode?: number;
  now?: string;
  timeZone?: string;
  expect: string;
  reset?: string | null;
}

const ROWS = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../fixtures/limits/messages.json'), 'utf8'),
) as Row[];

const DEFAULT_NOW = '2026-11-22T12:00:00Z';

function outputLines(row: Row): string[] {
  if (row.noOutput === true) return [];
  const lines: unknown[] = [
    { type: 'system', subtype: 'init', session_id: 's', model: 'claude-sonnet-5' },
    ...(row.lines ?? []),
  ];
  const text = row.text ?? '';
  if (text !== '') {
    // Claude Code reports an API error as a synthetic assistant message before its result.
    lines.push({
      type: 'assistant',
      message: {
        model: row.ok === true ? 'claude-sonnet-5' : '<synthetic>',
        role: 'assistant',
        content: [{ type: 'text', text }],
      },
      ...(row.error === undefined ? {} : { error: row.error }),
      session_id: 's',
    });
  }
  const hasResult = row.noResult !== true && (row.text !== undefined || row.stderr === undefined);
  if (hasResult) {
    lines.push({
      type: 'result',
      subtype: row.subtype ?? 'success',
      is_error: row.ok !== true,
      api_error_status: row.status ?? null,
      result: text,
      session_id: 's',
    });
  }
  return lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line)));
}

function evidenceOf(row: Row): RunEvidence {
  const collector = createRunCollector();
  for (const line of outputLines(row)) collector.add(parseStreamLine(line));
  const collected = collector.collected();
  return {
    ...collected,
    exitCode: row.exitCode ?? (row.ok === true ? 0 : 1),
    timedOut: false,
    canceled: false,
    spawnError: undefined,
    stderrTail: row.stderr ?? '',
  };
}

function verdictOf(row: Row): RunClassification {
  return classifyRun(evidenceOf(row), {
    now: new Date(row.now ?? DEFAULT_NOW),
    timeZone: row.timeZone ?? 'UTC',
  });
}

/** What the row expects that the verdict got wrong, or undefined when it is right. */
function mismatch(row: Row, verdict: RunClassification): string | undefined {
  const [kind, advice] = row.expect.split(':');
  if (verdict.kind !== kind) return `${verdict.kind} (${verdict.why})`;
  if (verdict.kind === 'fatal' && advice !== undefined && verdict.advice !== advice) {
    return `advice ${verdict.advice} (${verdict.why})`;
  }
  if (verdict.kind === 'usage_limit' && row.reset !== undefined) {
    const got = verdict.limit.resetAt?.toISOString() ?? null;
    const right = row.reset === 'known' ? got !== null : got === row.reset;
    if (!right) return `reset ${String(got)} (${verdict.why})`;
  }
  return undefined;
}

describe('the limit-message table', () => {
  it('has at least 100 rows, each citing its source, with unique ids', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(ROWS.map((row) => row.id)).size).toBe(ROWS.length);
    for (const row of ROWS) expect(row.source.length, row.id).toBeGreaterThan(5);
  });

  it('classifies every row as expected (kind, advice, reset)', () => {
    const wrong = ROWS.flatMap((row) => {
      const problem = mismatch(row, verdictOf(row));
      return problem === undefined ? [] : [`${row.id}: expected ${row.expect}, got ${problem}`];
    });
    console.log(`limit-message table: ${ROWS.length - wrong.length}/${ROWS.length} right`);
    expect(wrong).toEqual([]);
  });

  it('gives every fatal row advice that says what to do', () => {
    for (const row of ROWS.filter((each) => each.expect.startsWith('fatal'))) {
      const verdict = verdictOf(row);
      if (verdict.kind !== 'fatal') continue; // counted by the test above
      expect(verdict.hint.length, row.id).toBeGreaterThan(20);
    }
  });
});
