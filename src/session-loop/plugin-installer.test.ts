import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installPlugin } from './plugin-installer.js';

describe('installPlugin', () => {
  it('writes the manifest, five slash commands and the Stop hook; a second run changes nothing', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'ralph-plugin-')), 'plugin');
    const first = await installPlugin(dir, 'ralph');
    expect(first.map((file) => file.path.slice(dir.length + 1)).sort()).toEqual([
      '.claude-plugin/marketplace.json',
      '.claude-plugin/plugin.json',
      'commands/cancel-ralph.md',
      'commands/help.md',
      'commands/list.md',
      'commands/ralph-loop.md',
      'commands/start-loop.md',
      'hooks/hooks.json',
    ]);
    expect(first.every((file) => file.action === 'created')).toBe(true);
    const manifest = JSON.parse(
      await readFile(join(dir, '.claude-plugin/plugin.json'), 'utf8'),
    ) as {
      name: string;
    };
    expect(manifest.name).toBe('ralph-loop');
    const hooks = JSON.parse(await readFile(join(dir, 'hooks/hooks.json'), 'utf8')) as {
      hooks: { Stop: { hooks: { command: string }[] }[] };
    };
    expect(hooks.hooks.Stop[0]?.hooks[0]?.command).toBe('ralph stop-hook');
    const list = await readFile(join(dir, 'commands/list.md'), 'utf8');
    expect(list).toContain('!`ralph loop list`');
    expect(list).not.toContain('{{');

    const second = await installPlugin(dir, 'ralph');
    expect(second.every((file) => file.action === 'unchanged')).toBe(true);
  });

  it('updates files whose command changed and leaves other files alone', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'ralph-plugin-')), 'plugin');
    await installPlugin(dir, 'ralph');
    await writeFile(join(dir, 'README.md'), 'mine');
    const results = await installPlugin(dir, '/usr/bin/node /x/bin.js');
    expect(results.find((file) => file.path.endsWith('hooks.json'))?.action).toBe('updated');
    expect(results.find((file) => file.path.endsWith('plugin.json'))?.action).toBe('unchanged');
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('mine');
    expect(await readFile(join(dir, 'commands/ralph-loop.md'), 'utf8')).toContain(
      '/usr/bin/node /x/bin.js loop start',
    );
  });
});
