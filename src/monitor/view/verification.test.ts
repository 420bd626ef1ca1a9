import { describe, expect, it } from 'vitest';
import type { EvidenceEntry, StoryVerification } from '../../state/evidence-log.js';
import { verificationText } from './verification.js';

const check = (command: string, verdict: EvidenceEntry['verdict']): EvidenceEntry => ({
  at: '2026-11-23T10:00:00Z',
  storyId: 'S-1',
  iteration: 3,
  kind: 'quality',
  command,
  durationMs: 5,
  outputTail: '',
  verdict,
});

const latest = (verdict: StoryVerification['verdict'], checks: EvidenceEntry[]) => ({
  storyId: 'S-1',
  at: '2026-11-23T10:00:00Z',
  iteration: 3,
  commit: undefined,
  verdict,
  checks,
});

describe('verificationText', () => {
  it('says how a story was verified, why it was rejected, or that nobody checked it', () => {
    const ok = [check('node --test a.test.js', 'pass'), check('npm test', 'pass')];
    expect(verificationText(latest('pass', ok), { passes: true })).toBe(
      'verified in iteration 3: node --test a.test.js, npm test',
    );
    const bad = [check('node --test a.test.js', 'pass'), check('npm test', 'fail')];
    expect(verificationText(latest('fail', bad), { passes: false })).toBe(
      'rejected in iteration 3: npm test failed',
    );
    expect(verificationText(undefined, { passes: true })).toBe('not verified by ralph');
    expect(verificationText(undefined, { passes: false })).toBe('');
    expect(verificationText(undefined, { passes: false, blocked: 'parked by ralph' })).toBe(
      'parked by ralph',
    );
  });
});
