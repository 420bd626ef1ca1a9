import { appendFile, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendEvidence, readEvidenceLog, type EvidenceEntry } from './evidence-log.js';
import { evidenceKey } from './evidence-seal.js';

const entry = (storyId: string, verdict: 'pass' | 'fail', iteration = 1): EvidenceEntry => ({
  at: '2026-01-01T00:00:00.000Z',
  storyId,
  iteration,
  kind: 'quality',
  command: 'npm test',
  exitCode: verdict === 'pass' ? 0 : 1,
  durationMs: 5,
  outputTail: '',
  verdict,
});

async function dirs(): Promise<{ loop: string; state: string }> {
  return {
    loop: await mkdtemp(join(tmpdir(), 'ralph-loop-')),
    state: join(await mkdtemp(join(tmpdir(), 'ralph-home-')), 'state'),
  };
}

describe('sealed evidence', () => {
  it('counts only the lines ralph wrote: a forged pass and a replayed line do not', async () => {
    const { loop, state } = await dirs();
    await appendEvidence(loop, [entry('STORY-001', 'pass')], state);
    await appendEvidence(loop, [entry('STORY-002', 'fail', 2)], state);
    const file = join(loop, 'evidence.jsonl');
    const [genuinePass] = (await readFile(file, 'utf8')).split('\n');
    // The agent appends a made-up pass, and replays ralph's own pass line of STORY-001.
    await appendFile(
      file,
      `${JSON.stringify({ ...entry('STORY-002', 'pass', 2), seal: 'f'.repeat(64) })}\n`,
    );
    await appendFile(file, `${genuinePass}\n`);
    const log = await readEvidenceLog(loop, state);
    expect(log.entries.map((each) => [each.storyId, each.verdict])).toEqual([
      ['STORY-001', 'pass'],
      ['STORY-002', 'fail'],
    ]);
    expect(log.notRalphs).toBe(2);
    // ralph's next line chains on from its own last line, past the forged ones.
    await appendEvidence(loop, [entry('STORY-002', 'pass', 3)], state);
    const after = await readEvidenceLog(loop, state);
    expect(after.entries).toHaveLength(3);
    expect(after.notRalphs).toBe(2);
  });

  it('notices lines ralph wrote that were removed from the end, and keeps saying so', async () => {
    const { loop, state } = await dirs();
    await appendEvidence(loop, [entry('STORY-001', 'pass')], state);
    await appendEvidence(loop, [entry('STORY-001', 'fail', 2)], state);
    expect((await readEvidenceLog(loop, state)).lost).toBeUndefined();
    const file = join(loop, 'evidence.jsonl');
    const [first] = (await readFile(file, 'utf8')).split('\n');
    await writeFile(file, `${first}\n`);
    expect((await readEvidenceLog(loop, state)).lost).toBe(
      'lines ralph wrote are missing from its end',
    );
    await appendEvidence(loop, [entry('STORY-001', 'pass', 3)], state);
    expect((await readEvidenceLog(loop, state)).lost).toMatch(
      /^lines ralph wrote are missing .*\(seen /,
    );
  });

  it('trusts no line when ralph has no key, and keeps the key private', async () => {
    const { loop, state } = await dirs();
    await appendEvidence(loop, [entry('STORY-001', 'pass')]);
    expect(await readEvidenceLog(loop, state)).toEqual({ entries: [], notRalphs: 1 });
    // Without a state dir (a library caller) nothing is checked.
    expect((await readEvidenceLog(loop)).entries).toHaveLength(1);
    const key = await evidenceKey(state, true);
    expect(key).toHaveLength(32);
    expect(await evidenceKey(state, true)).toEqual(key);
    expect((await stat(join(state, 'evidence.key'))).mode & 0o777).toBe(0o600);
  });
});
