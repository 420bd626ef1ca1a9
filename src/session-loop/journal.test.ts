import { describe, expect, it } from 'vitest';
import { fenced, journalEntry, journalHeader } from './journal.js';

describe('journal', () => {
  it('writes the ralph-loop-mac layout', () => {
    const text =
      journalHeader('abc12345', '2026-01-21T12:00:00Z', 'Do it') +
      journalEntry(1, '2026-01-21T12:01:00Z', 'Continuing to iteration 2');
    expect(text).toBe(
      '# Ralph Loop Journal - abc12345\n\nStarted: 2026-01-21T12:00:00Z\nTask:\n\n```text\nDo it\n```\n\n---\n\n## Iteration Log\n\n' +
        '### Iteration 1 - 2026-01-21T12:01:00Z\n\n**Status:** Continuing to iteration 2\n\n---\n\n',
    );
  });

  it('fences a prompt with a longer fence than any backtick run inside', () => {
    expect(fenced('a ```` b')).toBe('`````text\na ```` b\n`````');
    expect(fenced('x\n')).toBe('```text\nx\n```');
  });
});
