import { describe, expect, it } from 'vitest';
import { buildPrompt, runWizard, vagueCriterion, WizardAborted, type WizardIo } from './wizard.js';

function scripted(answers: string[]): WizardIo & { said: string[]; asked: string[] } {
  const queue = [...answers];
  const said: string[] = [];
  const asked: string[] = [];
  return {
    said,
    asked,
    ask: (question) => {
      asked.push(question);
      return Promise.resolve(queue.shift());
    },
    say: (text) => {
      said.push(text);
    },
  };
}

describe('runWizard', () => {
  it('builds the prompt from the answers', async () => {
    const io = scripted([
      'Build a REST API for todos',
      '`npm test` passes',
      'GET /todos returns 200 and a JSON array',
      '',
      '15',
      'ALL TESTS PASS',
      'y',
    ]);
    const result = await runWizard(io, { loopId: 'abc12345' });
    expect(result.maxIterations).toBe(15);
    expect(result.completionPromise).toBe('ALL TESTS PASS');
    expect(result.prompt).toBe(
      buildPrompt({
        task: 'Build a REST API for todos',
        criteria: ['`npm test` passes', 'GET /todos returns 200 and a JSON array'],
        promise: 'ALL TESTS PASS',
        loopId: 'abc12345',
      }),
    );
    expect(result.prompt).toContain('.claude/ralph-journal-abc12345.md');
    expect(result.prompt).toContain('<promise>ALL TESTS PASS</promise>');
    expect(io.said.join('\n')).toMatch(/Bad: {2}"make it work well"/);
  });

  it('names the configured backstop in the limit question (else the config default)', async () => {
    const answers = ['task', '`npm test` passes', '', '5', '', 'y'];
    const configured = scripted(answers);
    await runWizard(configured, { loopId: 'abc12345', backstopIterations: 80 });
    expect(configured.asked.join('\n')).toContain('(0 = no limit, backstop 80)');
    const unconfigured = scripted(answers);
    await runWizard(unconfigured, { loopId: 'abc12345' });
    expect(unconfigured.asked.join('\n')).toContain('(0 = no limit, backstop 500)');
  });

  it('teaches on a vague criterion and takes the rewrite; defaults on empty answers', async () => {
    const io = scripted([
      '',
      'Tidy the code',
      'make it work well',
      'npm run lint passes',
      '',
      '',
      '',
      '',
    ]);
    const result = await runWizard(io, { loopId: 'abc12345', task: undefined });
    expect(io.said.join('\n')).toMatch(/"make it work well" is hard to check/);
    expect(result.prompt).toContain('- npm run lint passes');
    expect(result.prompt).not.toContain('work well');
    expect(result.maxIterations).toBe(20);
    expect(result.completionPromise).toBe('DONE');
  });

  it('asks again for a bad number or promise, and insists on one criterion', async () => {
    const io = scripted(['', 'x exists', '', 'ten', '3', '<promise>X</promise>', 'OK', 'yes']);
    const result = await runWizard(io, { loopId: 'abc12345', task: 'Task given' });
    expect(io.said).toContain(
      'At least one criterion, please: without one the loop cannot know it is done.',
    );
    expect(result).toMatchObject({ maxIterations: 3, completionPromise: 'OK' });
  });

  it('aborts when the answers run out or the user says no', async () => {
    await expect(
      runWizard(scripted(['task', 'tests pass']), { loopId: 'abc12345' }),
    ).rejects.toThrow(WizardAborted);
    await expect(
      runWizard(scripted(['task', 'tests pass', '', '', '', 'n']), { loopId: 'abc12345' }),
    ).rejects.toThrow(/not started/);
  });
});

describe('vagueCriterion', () => {
  it('flags unmeasurable wording only', () => {
    expect(vagueCriterion('the code is clean')).toMatch(/hard to check/);
    expect(vagueCriterion('it works properly')).toMatch(/hard to check/);
    expect(vagueCriterion('npm test passes')).toBeUndefined();
    expect(vagueCriterion('works: `curl /health` returns 200')).toBeUndefined();
    expect(vagueCriterion('add a --json flag')).toBeUndefined();
  });
});
