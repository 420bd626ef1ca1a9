import { describe, expect, it } from 'vitest';
import { buildClaudeArgs } from './argv.js';
import type { ClaudeArgsInput } from './argv.js';

const base: ClaudeArgsInput = {
  model: undefined,
  permission: { kind: 'skip' },
  settings: undefined,
  mcpConfig: undefined,
};

describe('buildClaudeArgs', () => {
  it('always asks for stream-json with --verbose, and has no prompt (it goes to stdin)', () => {
    expect(buildClaudeArgs(base)).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
    ]);
  });

  it('adds model, permission mode, settings and a strict MCP config in that order', () => {
    expect(
      buildClaudeArgs({
        ...base,
        model: 'opus',
        permission: { kind: 'mode', mode: 'acceptEdits' },
        settings: { hooks: { Stop: [] } },
        mcpConfig: '{"mcpServers":{}}',
      }),
    ).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      'opus',
      '--permission-mode',
      'acceptEdits',
      '--settings',
      '{"hooks":{"Stop":[]}}',
      '--mcp-config',
      '{"mcpServers":{}}',
      '--strict-mcp-config',
    ]);
  });

  it('leaves out an empty model', () => {
    expect(buildClaudeArgs({ ...base, model: '' })).not.toContain('--model');
  });
});
