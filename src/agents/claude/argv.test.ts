import { describe, expect, it } from 'vitest';
import { buildClaudeArgs } from './argv.js';
import type { ClaudeArgsInput } from './argv.js';

const base: ClaudeArgsInput = {
  prompt: 'do the story',
  model: undefined,
  permission: { kind: 'skip' },
  settings: undefined,
  mcpConfig: undefined,
};

describe('buildClaudeArgs', () => {
  it('always asks for stream-json with --verbose, prompt first', () => {
    expect(buildClaudeArgs(base)).toEqual([
      '-p',
      'do the story',
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
      'do the story',
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

  it('keeps a prompt that starts with "-" from being read as an option', () => {
    expect(buildClaudeArgs({ ...base, prompt: '---\ntitle: x\n---\nwork' })[1]).toBe(
      ' ---\ntitle: x\n---\nwork',
    );
  });
});
