import { describe, expect, it } from 'vitest';
import { estimateTokens, fitSections, promptSize, type PromptSection } from './prompt-budget.js';

/** A section that wants `wants` characters and records what it was offered. */
function section(id: string, weight: number, wants: number, offered: number[]): PromptSection {
  return {
    id,
    weight,
    render: (maxChars) => {
      offered.push(maxChars);
      return id.repeat(Math.min(wants, maxChars));
    },
  };
}

describe('fitSections', () => {
  it('shares the room by weight, and what one does not use passes to the next', () => {
    const offered: number[] = [];
    const texts = fitSections(
      [section('a', 1, 10, offered), section('b', 1, 10_000, offered)],
      1002,
    );
    // a is offered half (minus the blank line before it), uses 10; b gets all the rest.
    expect(offered).toEqual([499, 1002 - 12 - 2]);
    expect(texts.map((text) => text.length)).toEqual([10, 988]);
    expect(texts.join('\n\n').length + 2).toBeLessThanOrEqual(1002);
  });

  it('cuts a section that oversteps its share and leaves out empty ones', () => {
    const greedy: PromptSection = { id: 'g', weight: 1, render: () => 'x'.repeat(500) };
    const empty: PromptSection = { id: 'e', weight: 3, render: () => '' };
    expect(fitSections([empty, greedy], 102)).toEqual(['x'.repeat(100)]);
    expect(fitSections([greedy], 0)).toEqual([]);
    expect(fitSections([greedy], -50)).toEqual([]);
  });
});

describe('promptSize', () => {
  it('counts ≈ 4 characters a token and says when the budget is passed', () => {
    expect(estimateTokens('x'.repeat(4001))).toBe(1001);
    expect(promptSize('x'.repeat(4000), 1000)).toMatchObject({ tokens: 1000, overBudget: false });
    expect(promptSize('é'.repeat(4004), 1000)).toMatchObject({
      bytes: 8008,
      tokens: 1001,
      overBudget: true,
    });
  });
});
