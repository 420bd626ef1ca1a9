import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installStopHookSettings } from './settings-installer.js';

const COMMAND = '/usr/bin/node /opt/ralph/dist/cli/bin.js stop-hook';

async function settingsFile(text?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-settings-'));
  const path = join(dir, '.claude', 'settings.local.json');
  if (text !== undefined) {
    await mkdir(join(dir, '.claude'));
    await writeFile(path, text);
  }
  return path;
}

describe('installStopHookSettings', () => {
  it('creates the file and folder when missing, then changes nothing', async () => {
    const path = await settingsFile();
    expect(await installStopHookSettings(path, COMMAND)).toEqual({ action: 'added' });
    const first = await readFile(path, 'utf8');
    expect(JSON.parse(first)).toEqual({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: COMMAND, timeout: 30 }] }] },
    });
    expect(await installStopHookSettings(path, COMMAND)).toEqual({ action: 'unchanged' });
    expect(await readFile(path, 'utf8')).toBe(first);
  });

  it('keeps every other setting and hook, in order', async () => {
    const original = {
      permissions: { allow: ['Bash(npm test:*)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
      },
      model: 'sonnet',
    };
    const path = await settingsFile(JSON.stringify(original, null, 4));
    await installStopHookSettings(path, COMMAND);
    const text = await readFile(path, 'utf8');
    expect(text).toMatch(/^\{\n {4}"permissions"/);
    const written = JSON.parse(text) as typeof original;
    expect(Object.keys(written)).toEqual(['permissions', 'hooks', 'model']);
    expect(written.hooks.PreToolUse).toEqual(original.hooks.PreToolUse);
    expect(written.hooks.Stop).toEqual([
      ...original.hooks.Stop,
      { hooks: [{ type: 'command', command: COMMAND, timeout: 30 }] },
    ]);
  });

  it('replaces an older ralph hook instead of adding a second one', async () => {
    const path = await settingsFile(
      JSON.stringify({
        hooks: {
          Stop: [
            { hooks: [{ type: 'command', command: 'ralph stop-hook' }] },
            { hooks: [{ type: 'command', command: 'node /old/ralph/dist/cli/bin.js stop-hook' }] },
          ],
        },
      }),
    );
    expect(await installStopHookSettings(path, COMMAND)).toEqual({ action: 'updated' });
    const written = JSON.parse(await readFile(path, 'utf8')) as { hooks: { Stop: unknown[] } };
    expect(written.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: COMMAND }] }]);
  });

  const BROKEN: [string, string, RegExp][] = [
    ['not JSON', '{ "hooks": ', /not valid JSON/],
    ['JSON with comments', '{ // mine\n "a": 1 }', /not valid JSON/],
    ['an array', '[]', /expected a JSON object/],
    ['hooks as a list', '{"hooks": []}', /hooks/],
    ['Stop as an object', '{"hooks": {"Stop": {}}}', /hooks\.Stop/],
  ];
  for (const [name, text, message] of BROKEN) {
    it(`never rewrites a file that is ${name}, and names it`, async () => {
      const path = await settingsFile(text);
      const error = await installStopHookSettings(path, COMMAND).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'INVALID_JSON' });
      expect((error as Error).message).toContain(path);
      expect((error as Error).message).toMatch(message);
      expect(await readFile(path, 'utf8')).toBe(text);
    });
  }
});
