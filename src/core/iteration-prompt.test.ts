import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeAgent, loopDir, pass, run } from '../../test/fixtures/core/engine-fakes.js';
import { DEFAULT_TOKEN_BUDGET } from '../state/context-config-schema.js';
import { loopOptions } from '../../test/fixtures/core/loop-options.js';
import { iterationPrompt } from './iteration-prompt.js';
import { estimateTokens } from './prompt-budget.js';

const PATTERNS = [
  '## Codebase Patterns',
  '',
  '- Run `npm test -- --run` (watch mode hangs CI).',
  '- PATTERN-MARKER: money is integer cents, never floats.',
].join('\n');

/** progress.txt as it looks after `iterations` iterations: ≈ 10 KB of notes and history each. */
function longProgress(iterations: number): string {
  const parts = ['# Progress Log: feature-x', '# Started: 2026-11-01T00:00:00Z', '', PATTERNS, ''];
  for (let n = 1; n <= iterations; n += 1) {
    parts.push(
      '---',
      `Iteration: ${n}`,
      `Story: STORY-${String(n).padStart(3, '0')} - story ${n}`,
      'Status: complete',
      'Learnings:',
      ...Array.from(
        { length: 92 },
        (_, line) => `  - iteration ${n} learned thing ${line}: ${'x'.repeat(70)}`,
      ),
      `ENTRY-END-${n}`,
      '',
      '| Iteration | Attempt | Time | Story | Result | Session | Cost | Tokens |',
      '|---|---|---|---|---|---|---|---|',
      `| ${n} | 1 | 2026-11-01T00:00:00Z | STORY-${n} | progress | s-${n} | $0.0100 | 10 in / 5 out |`,
      '',
    );
  }
  return parts.join('\n');
}

describe('the prompt at iteration 200 with a 2 MB progress.txt', () => {
  it('stays within context.tokenBudget, keeps the patterns and the newest entries, names the file', async () => {
    const dir = await loopDir();
    const progress = longProgress(200);
    expect(progress.length).toBeGreaterThan(2_000_000);
    await writeFile(join(dir, 'progress.txt'), progress);
    const agent = fakeAgent(dir, [pass('STORY-001')]);
    const { result } = await run(dir, agent, { lastIteration: 199, maxIterations: 1 });
    expect(result.iterations).toBe(200);
    const prompt = agent.requests[0]?.prompt ?? '';
    expect(estimateTokens(prompt)).toBeLessThanOrEqual(DEFAULT_TOKEN_BUDGET);
    // Most of the budget is used: the room goes to the log, not wasted.
    expect(estimateTokens(prompt)).toBeGreaterThan(DEFAULT_TOKEN_BUDGET * 0.9);
    expect(prompt).toContain('Work on **STORY-001: story 1**');
    expect(prompt).toContain(PATTERNS);
    expect(prompt).toContain('ENTRY-END-200');
    expect(prompt).toContain('ENTRY-END-199');
    expect(prompt).not.toContain('ENTRY-END-1\n');
    expect(prompt).toMatch(
      /## Newest entries of progress\.txt \(older ones are left out here: the file has 1\.\d MB; read or grep it for them\)/,
    );
    // Cut where an entry starts: the oldest entry quoted is whole.
    const quoted = prompt.slice(prompt.indexOf('## Newest entries'));
    expect(quoted.split('\n')[2]).toBe('---');
  });

  it('holds a smaller budget too, and the patterns come before the entries', async () => {
    const dir = await loopDir();
    await writeFile(join(dir, 'progress.txt'), longProgress(200));
    const options = loopOptions(dir, { tokenBudget: 3000 });
    const { prompt, size } = await iterationPrompt(options, {
      id: 'STORY-001',
      title: 'story 1',
      description: '',
      acceptanceCriteria: ['works'],
      priority: 1,
      passes: false,
    } as never);
    expect(size).toMatchObject({ budget: 3000, overBudget: false });
    expect(size.tokens).toBeLessThanOrEqual(3000);
    expect(prompt.indexOf('PATTERN-MARKER')).toBeLessThan(prompt.indexOf('ENTRY-END-200'));
  });

  it('quotes a short progress.txt whole', async () => {
    const dir = await loopDir();
    await writeFile(join(dir, 'progress.txt'), longProgress(2));
    const agent = fakeAgent(dir, [pass('STORY-001')]);
    await run(dir, agent, { maxIterations: 1 });
    const prompt = agent.requests[0]?.prompt ?? '';
    expect(prompt).toContain('## From progress.txt (all of it)');
    expect(prompt).toContain('ENTRY-END-1\n');
    expect(prompt).toContain(PATTERNS);
  });

  it('warns once when the story alone is over the budget, and still sends it whole', async () => {
    const dir = await loopDir();
    await writeFile(join(dir, 'progress.txt'), longProgress(3));
    const agent = fakeAgent(dir, [pass('STORY-001')]);
    const template = `Do one story.\n${'A long template line.\n'.repeat(800)}`;
    const { events } = await run(dir, agent, {
      maxIterations: 1,
      tokenBudget: 1000,
      promptTemplate: template,
    });
    const prompt = agent.requests[0]?.prompt ?? '';
    expect(prompt).toContain(template.trimEnd());
    expect(prompt).not.toContain('ENTRY-END');
    const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^the prompt for STORY-001 is ≈ \d+ tokens, over context.tokenBudget \(1000\)/,
      ),
    ]);
  });
});
