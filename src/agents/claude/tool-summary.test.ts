import { describe, expect, it } from 'vitest';
import { summarizeToolInput } from './tool-summary.js';

describe('summarizeToolInput', () => {
  it.each([
    ['Bash', { command: 'npm test', description: 'Run tests' }, 'npm test'],
    ['Read', { file_path: '/repo/a.ts', limit: 20 }, '/repo/a.ts'],
    ['Edit', { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b' }, '/repo/a.ts'],
    ['Write', { content: 'x'.repeat(10_000), file_path: '/repo/b.ts' }, '/repo/b.ts'],
    ['Grep', { pattern: 'TODO', path: 'src' }, 'TODO'],
    ['Glob', { pattern: '**/*.sh' }, '**/*.sh'],
    ['mcp__playwright__navigate', { url: 'http://localhost:3000' }, 'http://localhost:3000'],
    ['Custom', { body: 'y'.repeat(500), title: 'short one' }, 'short one'],
    ['TodoWrite', { todos: [{ content: 'a' }] }, ''],
    ['Bash', 'not an object', ''],
    ['Bash', null, ''],
  ])('%s %j', (name, input, expected) => {
    expect(summarizeToolInput(name, input)).toBe(expected);
  });

  it('flattens whitespace and caps the length at 200 characters', () => {
    const summary = summarizeToolInput('Bash', {
      command: `cat <<'EOF'\n${'word '.repeat(100)}\nEOF`,
    });
    expect(summary).not.toMatch(/\n/);
    expect(summary).toHaveLength(200);
    expect(summary.endsWith('…')).toBe(true);
    expect(summarizeToolInput('Other', { body: 'z'.repeat(300) })).toHaveLength(200);
  });
});
