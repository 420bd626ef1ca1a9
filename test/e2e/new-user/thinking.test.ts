import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';

const LINES = [
  { type: 'system', subtype: 'init', session_id: 's1', model: 'claude-sonnet-5-5' },
  {
    type: 'assistant',
    session_id: 's1',
    message: {
      model: 'claude-sonnet-5-5',
      content: [
        { type: 'thinking', thinking: 'I should read the spec first.', signature: 'EqQBSIG' },
      ],
    },
  },
  {
    type: 'assistant',
    session_id: 's1',
    message: { model: 'claude-sonnet-5-5', content: [{ type: 'text', text: 'Done.' }] },
  },
  { type: 'result', subtype: 'success', is_error: false, num_turns: 1, result: 'Done.' },
];

/** Thinking blocks, as models with extended thinking print them in stream-json. */
describe('a log with thinking blocks', () => {
  it('`ralph logs` renders them and `inspect` counts them as stream-json', async () => {
    const { repo, home } = await tempRepo();
    expect((await runRalph(['init'], repo, testEnv(home))).code).toBe(0);
    const dir = join(repo, '.ralph', 'feature-csv-export');
    await mkdir(join(dir, 'logs'), { recursive: true });
    const log = join(dir, 'logs', 'iteration-1-attempt-1.jsonl');
    await writeFile(log, LINES.map((line) => JSON.stringify(line)).join('\n') + '\n');

    const logs = await runRalph(['logs'], repo, testEnv(home));
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toContain('thinking: I should read the spec first.');
    expect(logs.stdout).not.toContain('"thinking"');
    expect(logs.stdout).not.toContain('EqQBSIG');

    const inspect = await runRalph(['inspect', log, '--json'], repo, testEnv(home));
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(JSON.parse(inspect.stdout)).toMatchObject({ unknownLines: 0 });
    const text = await runRalph(['inspect', log], repo, testEnv(home));
    expect(text.stdout).not.toContain('not stream-json');
  });
});
