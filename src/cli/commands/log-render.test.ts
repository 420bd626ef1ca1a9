import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderAgentLine, renderAuditLine } from './log-render.js';

const FIXTURE = resolve(import.meta.dirname, '../../../test/fixtures/agent/story-complete.jsonl');

describe('renderAgentLine', () => {
  it("renders a whole iteration log: session, the agent's text, tool calls, their results, the result", async () => {
    const lines = (await readFile(FIXTURE, 'utf8')).split('\n').flatMap(renderAgentLine);
    expect(lines).toEqual([
      '● session 5b1c2f4e-8d3a-4c6b-9e21-0f7a3d9c1b42 · model claude-sonnet-5-5 · Claude Code 2.1.330',
      '“ I will implement the story and run the tests.',
      '→ Read /repo/prompt.md',
      '  ← 1 When every story passes, print <promise>COMPLETE</promise>. (+1 lines)',
      '→ Bash npm test',
      '  ← Tests: 12 passed',
      '“ The story passes its tests.',
      '',
      '  <promise>STORY_COMPLETE</promise>',
      expect.stringMatching(/^■ result: success · 3 turns · \$0\.0123 · 2s$/),
      '  The story passes its tests. <promise>STORY_COMPLETE</promise>',
    ]);
  });

  it('renders a thinking block as one shortened line, not its JSON', () => {
    const thought = 'The user wants a CSV export. '.repeat(20);
    const raw = JSON.stringify({
      type: 'assistant',
      message: {
        model: 'claude-sonnet-5-5',
        content: [{ type: 'thinking', thinking: thought, signature: 'EqQBCkYIBxgCKkB' }],
      },
      session_id: 's1',
    });
    const [line, ...rest] = renderAgentLine(raw);
    expect(rest).toEqual([]);
    expect(line).toMatch(/^∴ thinking: The user wants a CSV export\. The user/);
    expect(line?.length).toBeLessThanOrEqual(140);
    expect(line).not.toContain('signature');
    const redacted = JSON.stringify({
      type: 'assistant',
      message: { content: [{ type: 'redacted_thinking', data: 'abc' }] },
    });
    expect(renderAgentLine(redacted)).toEqual(['∴ thinking: (redacted)']);
  });

  it('keeps a line it does not understand, shortened', () => {
    expect(renderAgentLine('Claude Code banner')).toEqual(['  · Claude Code banner']);
    expect(renderAgentLine('')).toEqual([]);
  });
});

describe('renderAuditLine', () => {
  it('reads a guard decision by field name', () => {
    expect(
      renderAuditLine(
        JSON.stringify({
          at: '2026-11-22T10:00:00Z',
          decision: 'deny',
          tool: 'Bash',
          command: 'rm -rf /',
          reason: 'outside the project',
        }),
      ),
    ).toEqual(['2026-11-22T10:00:00Z DENY  Bash rm -rf / — outside the project']);
    expect(renderAuditLine('not json')).toEqual(['not json']);
  });
});
