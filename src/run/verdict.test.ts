import { describe, expect, it } from 'vitest';
import {
  DEBUG_TAG,
  debugStatusSchema,
  readTaggedBlock,
  replaceLastBlock,
  VERIFY_TAG,
  verifyVerdictSchema,
} from './verdict.js';

const report = (block: string) =>
  `# Verification\n\nAll goals VERIFIED in prose.\n\n\`\`\`ralph-verdict\n${block}\n\`\`\`\n`;

describe('readTaggedBlock', () => {
  it('reads the verdict block, whatever the prose says', () => {
    const parsed = readTaggedBlock(
      report(
        '{"status":"NEEDS_WORK","summary":"the export is not wired","goals":{"total":3,"achieved":2}}',
      ),
      VERIFY_TAG,
      verifyVerdictSchema,
    );
    expect(parsed).toEqual({
      ok: true,
      value: {
        status: 'NEEDS_WORK',
        summary: 'the export is not wired',
        goals: { total: 3, achieved: 2 },
      },
    });
  });

  it('takes the last block when there are several', () => {
    const text = `${report('{"status":"BLOCKED","summary":"first"}')}\n${report('{"status":"VERIFIED","summary":"second"}')}`;
    const parsed = readTaggedBlock(text, VERIFY_TAG, verifyVerdictSchema);
    expect(parsed.ok && parsed.value.summary).toBe('second');
  });

  it('says what is wrong with a missing, garbled or invalid block', () => {
    expect(readTaggedBlock('Status: VERIFIED\n', VERIFY_TAG, verifyVerdictSchema)).toEqual({
      ok: false,
      problem: 'no ```ralph-verdict block',
    });
    const garbled = readTaggedBlock(
      report('{"status": VERIFIED}'),
      VERIFY_TAG,
      verifyVerdictSchema,
    );
    expect(garbled.ok ? '' : garbled.problem).toMatch(/is not JSON/);
    const invalid = readTaggedBlock(report('{"status":"DONE"}'), VERIFY_TAG, verifyVerdictSchema);
    expect(invalid.ok ? '' : invalid.problem).toMatch(/not valid: status: .*; summary:/);
  });

  it('ignores an unclosed block and blocks with other tags', () => {
    const text =
      '```json\n{"status":"VERIFIED","summary":"x"}\n```\n```ralph-verdict\n{"status":"VERIFIED"';
    expect(readTaggedBlock(text, VERIFY_TAG, verifyVerdictSchema).ok).toBe(false);
  });
});

describe('replaceLastBlock', () => {
  it('replaces the last block in place, or appends one', () => {
    const text =
      'a\n\n```ralph-debug-status\n{"state":"CHECKPOINT_REACHED","summary":"s"}\n```\n\nafter\n';
    const replaced = replaceLastBlock(text, DEBUG_TAG, { state: 'IN_PROGRESS' });
    expect(replaced).toBe('a\n\n```ralph-debug-status\n{"state":"IN_PROGRESS"}\n```\n\nafter\n');
    expect(replaceLastBlock('a\n', DEBUG_TAG, { state: 'IN_PROGRESS' })).toBe(
      'a\n\n```ralph-debug-status\n{"state":"IN_PROGRESS"}\n```\n',
    );
    expect(readTaggedBlock(replaced, DEBUG_TAG, debugStatusSchema).ok).toBe(false);
  });
});
