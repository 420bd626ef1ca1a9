import { describe, expect, it } from 'vitest';
import { compareStoryIds, parseStoryId } from './story-id.js';

describe('parseStoryId', () => {
  it.each([
    ['STORY-002.1', 'STORY-', [2, 1]],
    ['US-001', 'US-', [1]],
    ['F12', 'F', [12]],
    ['F033', 'F', [33]],
    ['OPS-V4-001', 'OPS-V4-', [1]],
    ['feat_7.2.3', 'FEAT_', [7, 2, 3]],
    ['12', '', [12]],
  ])('reads %s', (id, prefix, numbers) => {
    expect(parseStoryId(id)).toEqual({ prefix, numbers });
  });

  it.each(['docs', 'dead-code', 'ROUTE_SSH', '#1', 'STORY-002.', 'STORY-2a', '-1', ''])(
    'leaves %j alone: not the PREFIX-NNN shape',
    (id) => {
      expect(parseStoryId(id)).toBeUndefined();
    },
  );
});

describe('compareStoryIds', () => {
  it('orders decimal parts numerically', () => {
    expect(compareStoryIds('STORY-002.9', 'STORY-002.10')).toBeLessThan(0);
    expect(compareStoryIds('STORY-002', 'STORY-002.1')).toBeLessThan(0);
    expect(compareStoryIds('STORY-002.1', 'STORY-003')).toBeLessThan(0);
    expect(compareStoryIds('STORY-010', 'STORY-9')).toBeGreaterThan(0);
    expect(compareStoryIds('F033', 'F33')).toBe(0);
  });

  it('sorts a list the way ralph-hybrid does', () => {
    const ids = [
      'STORY-003',
      'STORY-002.10',
      'STORY-002.1',
      'STORY-001',
      'STORY-002',
      'STORY-002.9',
    ];
    expect(ids.sort(compareStoryIds)).toEqual([
      'STORY-001',
      'STORY-002',
      'STORY-002.1',
      'STORY-002.9',
      'STORY-002.10',
      'STORY-003',
    ]);
  });

  it('orders by prefix first, ignoring case', () => {
    expect(compareStoryIds('AUTH-9', 'UI-1')).toBeLessThan(0);
    expect(compareStoryIds('us-002', 'US-001')).toBeGreaterThan(0);
  });

  it('gives slugs no order', () => {
    expect(compareStoryIds('docs', 'STORY-001')).toBe(0);
    expect(compareStoryIds('STORY-001', 'cli-ux')).toBe(0);
    expect(compareStoryIds('a', 'b')).toBe(0);
  });
});
