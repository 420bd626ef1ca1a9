import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendEvidence,
  latestVerifications,
  rejectionsOf,
  readEvidence,
  type EvidenceEntry,
} from './evidence-log.js';

function entry(
  storyId: string,
  iteration: number,
  verdict: EvidenceEntry['verdict'],
): EvidenceEntry {
  return {
    at: `2026-11-23T10:0${iteration}:00Z`,
    storyId,
    iteration,
    commit: 'abc',
    kind: 'quality',
    name: 'test',
    command: 'npm test',
    exitCode: verdict === 'fail' ? 1 : 0,
    durationMs: 10,
    outputTail: '',
    verdict,
  };
}

describe('evidence.jsonl', () => {
  it('appends lines and reads them back, skipping lines that are not evidence', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-evidence-'));
    await appendEvidence(dir, [entry('S-1', 1, 'fail')]);
    await writeFile(
      join(dir, 'evidence.jsonl'),
      `${await readFile(join(dir, 'evidence.jsonl'), 'utf8')}{"torn":`,
    );
    await appendEvidence(dir, [entry('S-1', 2, 'pass')]);
    expect((await readEvidence(dir)).map((line) => [line.iteration, line.verdict])).toEqual([
      [1, 'fail'],
      [2, 'pass'],
    ]);
    expect(await readEvidence(join(dir, 'missing'))).toEqual([]);
  });

  it('gives each story its latest verification', () => {
    const latest = latestVerifications([
      entry('S-1', 1, 'fail'),
      entry('S-2', 2, 'pass'),
      entry('S-1', 3, 'pass'),
      { ...entry('S-1', 3, 'pass'), kind: 'verify', command: 'node --test' },
    ]);
    expect(
      latest.map((each) => [each.storyId, each.iteration, each.verdict, each.checks.length]),
    ).toEqual([
      ['S-1', 3, 'pass', 2],
      ['S-2', 2, 'pass', 1],
    ]);
  });
});

describe('rejectionsOf', () => {
  it('counts rejected verifications since the last accepted one or park', () => {
    const partly = { ...entry('S-1', 4, 'pass'), kind: 'integrity' as const };
    const parked = { ...entry('S-1', 6, 'unchecked'), kind: 'parked' as const };
    const lines = [
      entry('S-1', 1, 'fail'),
      entry('S-1', 2, 'pass'),
      entry('S-1', 3, 'fail'),
      entry('S-2', 3, 'fail'),
      partly,
      entry('S-1', 4, 'fail'),
    ];
    expect(rejectionsOf(lines, 'S-1')).toEqual({ count: 2, lastFailure: lines[5] });
    expect(rejectionsOf([...lines, parked], 'S-1')).toEqual({ count: 0, lastFailure: undefined });
    expect(rejectionsOf([...lines, parked, entry('S-1', 7, 'fail')], 'S-1').count).toBe(1);
    expect(rejectionsOf(lines, 'S-3').count).toBe(0);
  });
});
