import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import { initialSafety, readSafety, writeSafety } from './store.js';

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-safety-'));
  created.push(dir);
  return dir;
}

const NOW = new Date('2026-11-22T12:00:00Z');

describe('safety.json', () => {
  it('starts from the initial state when no run wrote one', async () => {
    expect(await readSafety(await tempDir(), NOW)).toEqual(initialSafety(NOW));
  });

  it('round-trips every policy state, so a restart keeps it', async () => {
    const dir = await tempDir();
    const state = {
      ...initialSafety(NOW),
      breaker: {
        state: 'OPEN' as const,
        noProgress: 3,
        sameError: 0,
        permissionDenials: 0,
        openedAt: NOW.toISOString(),
        reason: 'no progress in 3 iterations in a row',
      },
      rateLimit: { calls: [{ at: NOW.getTime(), tokens: 120 }] },
      budget: {
        stories: {
          'STORY-001': {
            costUsd: 0.5,
            attempts: 2,
            tokens: {
              inputTokens: 1,
              outputTokens: 2,
              cacheReadInputTokens: 3,
              cacheCreationInputTokens: 4,
            },
          },
        },
      },
      usageLimit: {
        unknownResetStreak: 1,
        pending: {
          iteration: 4,
          attempt: 2,
          storyId: 'STORY-001',
          until: '2026-11-22T17:01:00.000Z',
          resetAt: '2026-11-22T17:00:00.000Z',
          message: "You've hit your limit · resets 5pm",
          source: 'result',
        },
      },
    };
    await writeSafety(dir, state);
    expect(await readSafety(dir, NOW)).toEqual(state);
    expect(await readFile(join(dir, 'safety.json'), 'utf8')).toMatch(/\n$/);
  });

  it('refuses a corrupt file with a hint instead of silently closing the breaker', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'safety.json'), '{"schemaVersion":1,"breaker":{"state":"AJAR"}}');
    const error = await readSafety(dir, NOW).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).hint).toMatch(/Delete it/);
    await writeFile(join(dir, 'safety.json'), 'not json');
    await expect(readSafety(dir, NOW)).rejects.toThrow(/not JSON/);
  });
});
