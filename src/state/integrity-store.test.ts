import { mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integrityStateFile, readIntegrityState, writeIntegrityState } from './integrity-store.js';
import { userStateDir } from './user-state.js';

describe('integrity state', () => {
  it('is empty at first, then keeps the base and counts per loop directory', async () => {
    const state = await mkdtemp(join(tmpdir(), 'ralph-state-'));
    expect(await readIntegrityState(state, '/repo/.ralph/a')).toEqual({
      loopDir: '/repo/.ralph/a',
      tests: {},
    });
    const saved = {
      loopDir: '/repo/.ralph/a',
      base: { commit: 'a'.repeat(40), untracked: [], testBlobs: {}, at: 'now' },
      tests: { 'quality:npm test': { runner: 'node', passed: 2, skipped: 0, todo: 0 } },
    };
    await writeIntegrityState(state, saved);
    expect(await readIntegrityState(state, '/repo/.ralph/a')).toEqual(saved);
    expect(await readIntegrityState(state, '/repo/.ralph/b')).toMatchObject({ tests: {} });
    expect(integrityStateFile(state, '/repo/.ralph/a')).toContain(join(state, 'loops'));
    expect(JSON.parse(await readFile(integrityStateFile(state, '/repo/.ralph/a'), 'utf8'))).toEqual(
      saved,
    );
  });

  it('names the file and the fix when it cannot be read', async () => {
    const state = await mkdtemp(join(tmpdir(), 'ralph-state-'));
    const file = integrityStateFile(state, '/repo/x');
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, '{"loopDir": 3}');
    await expect(readIntegrityState(state, '/repo/x')).rejects.toMatchObject({
      message: expect.stringContaining(file) as unknown,
      hint: expect.stringContaining('Delete') as unknown,
    });
  });

  it('lives in XDG_STATE_HOME, else ~/.local/state', () => {
    expect(userStateDir({ XDG_STATE_HOME: '/s' }, '/h')).toBe('/s/ralph');
    expect(userStateDir({ XDG_STATE_HOME: 'rel' }, '/h')).toBe('/h/.local/state/ralph');
  });
});
