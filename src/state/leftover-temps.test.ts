import { mkdir, mkdtemp, readdir, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sweepLeftoverTemps } from './leftover-temps.js';

describe('sweepLeftoverTemps', () => {
  it('removes what dead processes left, and nothing a live one is writing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-temps-'));
    await mkdir(join(dir, 'logs'));
    const files = [
      '.status.json.111.0123abcd.tmp',
      '.safety.json.111.89abcdef.tmp',
      'logs/.task-list-snapshot.json.111.00000000.tmp',
      '.status.json.222.0123abcd.tmp', // pid 222 is alive
      'notes.tmp',
      'prd.json',
    ];
    for (const name of files) await writeFile(join(dir, name), 'x');
    const deadLock = join(dir, '.ralph.lock.0123456789abcdef.tmp');
    await mkdir(deadLock);
    await writeFile(join(deadLock, 'holder-x.json'), '{"pid": 111}');
    const freshLock = join(dir, '.ralph.lock.fedcba9876543210.tmp');
    await mkdir(freshLock);
    const oldEmptyLock = join(dir, '.ralph.lock.aaaaaaaaaaaaaaaa.tmp');
    await mkdir(oldEmptyLock);
    await utimes(oldEmptyLock, new Date(0), new Date(0));

    const warnings = await sweepLeftoverTemps(dir, { isAlive: (pid) => pid === 222 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^removed 5 temp files that a killed run left behind: /);
    expect((await readdir(dir)).sort()).toEqual(
      [
        '.ralph.lock.fedcba9876543210.tmp',
        '.status.json.222.0123abcd.tmp',
        'logs',
        'notes.tmp',
        'prd.json',
      ].sort(),
    );
    expect(await readdir(join(dir, 'logs'))).toEqual([]);
    expect(await sweepLeftoverTemps(dir, { isAlive: (pid) => pid === 222 })).toEqual([]);
  });
});
