import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../context.js';
import { createAsker, type Stdin } from './amend-ask.js';

function setup(tty: boolean, answers: string) {
  const input = new PassThrough() as PassThrough & Stdin;
  input.isTTY = tty;
  input.end(answers);
  const stderr = new PassThrough();
  let shown = '';
  stderr.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  const context: CliContext = { cwd: '/', env: {}, stdout: new PassThrough(), stderr };
  return { ask: createAsker(input, context), shown: () => shown };
}

describe('createAsker', () => {
  it('on a terminal asks for what a flag did not give, and confirms', async () => {
    const { ask, shown } = setup(true, 'CSV export\nButton shows\nFile downloads\n\ny\n');
    expect(await ask.required(undefined, '--title', 'Title')).toBe('CSV export');
    expect(await ask.list([], '--criterion', 'Criteria')).toEqual([
      'Button shows',
      'File downloads',
    ]);
    expect(await ask.confirm('Proceed?')).toBe(true);
    expect(await ask.required('given', '--reason', 'Reason')).toBe('given');
    ask.close();
    expect(shown()).toContain('Title: ');
    expect(shown()).toContain('Proceed? (y/N) ');
  });

  it('anything but yes cancels on a terminal', async () => {
    const { ask } = setup(true, 'n\n');
    expect(await ask.confirm('Proceed?')).toBe(false);
    ask.close();
  });

  it('off a terminal names the missing flag and never waits for a confirmation', async () => {
    const { ask, shown } = setup(false, 'ignored\n');
    await expect(ask.required(undefined, '--reason', 'Reason')).rejects.toThrow(
      '--reason is required',
    );
    await expect(ask.list([], '--criterion', 'Criteria')).rejects.toThrow(
      '--criterion is required',
    );
    expect(await ask.confirm('Proceed?')).toBe(true);
    expect(await ask.optional('New title')).toBeUndefined();
    ask.close();
    expect(shown()).toBe('');
  });
});
