import { mkdir, mkdtemp, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLogFile } from './log-file.js';

async function setup(): Promise<{ logs: string; victimDir: string; victim: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-log-'));
  const victimDir = await mkdtemp(join(tmpdir(), 'ralph-victim-'));
  const victim = join(victimDir, '.bashrc');
  await writeFile(victim, 'export A=1\n');
  return { logs: join(dir, 'logs'), victimDir, victim };
}

describe('openLogFile', () => {
  it('writes the output to a fresh file, replacing an old one', async () => {
    const { logs } = await setup();
    const file = join(logs, 'iteration-1-attempt-1.jsonl');
    await mkdir(logs);
    await writeFile(file, 'stale output from an earlier run\n');
    const log = await openLogFile(file);
    await log.write(Buffer.from('{"type":"system"}\n'));
    await log.close();
    expect(await readFile(file, 'utf8')).toBe('{"type":"system"}\n');
  });

  it('refuses a log file the agent replaced with a link, and neither empties nor writes the victim', async () => {
    const { logs, victim } = await setup();
    const file = join(logs, 'iteration-2-attempt-1.jsonl');
    await mkdir(logs);
    await symlink(victim, file);
    await expect(openLogFile(file)).rejects.toMatchObject({
      code: 'UNSAFE_FILE',
      message: `ralph refused to use ${file}: it is a symbolic link, not a regular file of its own`,
    });
    expect(await readFile(victim, 'utf8')).toBe('export A=1\n');
  });

  it('refuses a logs folder the agent replaced with a link to a folder outside', async () => {
    const { logs, victimDir } = await setup();
    await symlink(victimDir, logs);
    await expect(openLogFile(join(logs, 'iteration-1-attempt-1.jsonl'))).rejects.toMatchObject({
      code: 'UNSAFE_FILE',
      message: `ralph refused to use ${logs}: it is a symbolic link, not a folder of its own`,
    });
    expect(await readdir(victimDir)).toEqual(['.bashrc']);
  });
});
