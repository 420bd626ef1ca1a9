import { mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../core/events.js';
import { loopPaths } from '../../state/paths.js';
import { eventsFileReporter } from './events-file.js';

const event: LoopEvent = {
  type: 'task_list_restored',
  at: '2026-11-23T00:00:00.000Z',
  iteration: 1,
  problems: ['added US-9\necho pwned'],
  kept: [],
};

describe('eventsFileReporter', () => {
  it('appends one JSON line per event, control characters escaped by JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-events-'));
    await writeFile(loopPaths(dir).events, '{"type":"earlier"}\n');
    const reporter = eventsFileReporter(dir);
    await reporter.onEvent(event);
    await reporter.onEvent({ ...event, iteration: 2 });
    await reporter.close?.();
    const lines = (await readFile(loopPaths(dir).events, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] ?? '')).toEqual(event);
  });

  it('refuses an events.jsonl the agent replaced with a link, leaving the victim intact', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-events-'));
    const victim = join(await mkdtemp(join(tmpdir(), 'ralph-victim-')), '.bashrc');
    await writeFile(victim, 'export A=1\n');
    const file = loopPaths(dir).events;
    await symlink(victim, file);
    const reporter = eventsFileReporter(dir);
    await expect(reporter.onEvent(event)).rejects.toMatchObject({
      code: 'UNSAFE_FILE',
      message: `ralph refused to use ${file}: it is a symbolic link, not a regular file of its own`,
    });
    await reporter.close?.();
    expect(await readFile(victim, 'utf8')).toBe('export A=1\n');
  });
});
