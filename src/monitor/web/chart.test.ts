import { describe, expect, it } from 'vitest';
import type { IterationRow } from '../view/reducer.js';
import { timelineSvg } from './chart.js';

const row = (iteration: number, extra: Partial<IterationRow> = {}): IterationRow => ({
  iteration,
  attempt: 1,
  storyId: `STORY-00${iteration}`,
  storyTitle: 'A story',
  startedAt: '2026-11-22T10:00:00.000Z',
  ...extra,
});
const options = {
  now: Date.parse('2026-11-22T10:00:30.000Z'),
  logHref: (each: IterationRow) => `/log?iteration=${each.iteration}&attempt=${each.attempt}`,
};

describe('timelineSvg', () => {
  it('draws one linked bar per iteration: height from duration, colour from result, a cost dot', () => {
    const svg = timelineSvg(
      [
        row(1, { outcome: 'no_progress', durationMs: 60_000, costUsd: 0.25 }),
        row(2, { outcome: 'progress', durationMs: 120_000, costUsd: 0.5 }),
        row(3), // running for 30 s
      ],
      options,
    );
    expect(svg.match(/<a href=/g)).toHaveLength(3);
    expect(svg).toContain('href="/log?iteration=2&amp;attempt=1"');
    expect(svg).toContain('fill="#9aa3ad"'); // no_progress
    expect(svg).toContain('fill="#2e9d4f"'); // progress
    expect(svg).toContain('fill="#3b82f6"'); // running
    expect(svg.match(/class="cost-dot"/g)).toHaveLength(2);
    expect(svg).toContain('<title>iteration 3: STORY-003, running, 30.0 s, no cost</title>');
    const heights = [...svg.matchAll(/<rect [^>]*height="([\d.]+)"/g)].map((match) =>
      Number(match[1]),
    );
    expect(heights[1]).toBeGreaterThan(heights[0] ?? Infinity);
    expect(heights[0]).toBeCloseTo((heights[1] ?? 0) / 2, 0);
  });

  it('escapes what it is given, and says when there is nothing yet', () => {
    const svg = timelineSvg(
      [row(1, { storyId: '<script>x</script>', outcome: 'error', durationMs: 1 })],
      options,
    );
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(timelineSvg([], options)).toContain('no iterations yet');
  });
});
