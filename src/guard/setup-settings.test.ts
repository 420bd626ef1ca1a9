import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installGuardSettings, isRalphGuardHook, PLAN_DENY } from './setup-settings.js';

const file = () =>
  join(mkdtempSync(join(tmpdir(), 'ralph-guard-setup-')), '.claude', 'settings.local.json');
interface Settings {
  model?: string;
  permissions: { allow: string[]; deny: string[] };
  hooks: { Stop?: unknown[]; PreToolUse: { matcher: string; hooks: { command: string }[] }[] };
}
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Settings;

describe('installGuardSettings (ralph setup --guard)', () => {
  it('creates the file with the hook and the plan lists, then changes nothing', async () => {
    const path = file();
    const first = await installGuardSettings(path, 'ralph guard');
    expect(first.action).toBe('added');
    const settings = read(path);
    // What it reports is what it wrote.
    expect(first.allowAdded).toEqual(settings.permissions.allow);
    expect(first.denyAdded).toEqual(settings.permissions.deny);
    expect(settings.hooks.PreToolUse[0]).toEqual({
      matcher: '*',
      hooks: [{ type: 'command', command: 'ralph guard', timeout: 30 }],
    });
    expect(settings.permissions.deny).toEqual(PLAN_DENY);
    expect(await installGuardSettings(path, 'ralph guard')).toEqual({
      action: 'unchanged',
      allowAdded: [],
      denyAdded: [],
    });
  });

  it('allows nothing that reaches the network by itself (WebFetch, curl)', async () => {
    const path = file();
    await installGuardSettings(path, 'ralph guard');
    const { allow } = read(path).permissions;
    expect(allow).toContain('Bash(npm:*)');
    expect(allow.filter((entry) => /webfetch|curl|wget/i.test(entry))).toEqual([]);
  });

  it('merges with what is there and replaces an older guard command', async () => {
    const path = file();
    await installGuardSettings(path, "'/usr/bin/node' '/old/dist/cli/bin.js' guard");
    const settings = read(path);
    settings.model = 'opus';
    settings.permissions.allow.push('Bash(make:*)');
    settings.hooks.Stop = [{ hooks: [{ type: 'command', command: 'ralph stop-hook' }] }];
    writeFileSync(path, JSON.stringify(settings, null, 4));
    expect((await installGuardSettings(path, 'ralph guard')).action).toBe('updated');
    const after = read(path);
    expect(after.model).toBe('opus');
    expect(after.permissions.allow).toContain('Bash(make:*)');
    expect(after.hooks.Stop).toHaveLength(1);
    expect(after.hooks.PreToolUse).toHaveLength(1);
    expect(after.hooks.PreToolUse[0]?.hooks[0]?.command).toBe('ralph guard');
    expect(readFileSync(path, 'utf8')).toMatch(/^ {4}"/m);
  });

  it('leaves a file that is not JSON alone', async () => {
    const path = file();
    await installGuardSettings(path, 'ralph guard');
    writeFileSync(path, '{ nope');
    await expect(installGuardSettings(path, 'ralph guard')).rejects.toThrow(/not valid JSON/);
    expect(readFileSync(path, 'utf8')).toBe('{ nope');
  });

  it('recognises its own hook commands', () => {
    expect(isRalphGuardHook('ralph guard')).toBe(true);
    expect(isRalphGuardHook("'/n/node' '/x/dist/cli/bin.js' guard")).toBe(true);
    expect(isRalphGuardHook("'/n/node' '/x/dist/cli/bin.cjs' guard")).toBe(true);
    expect(isRalphGuardHook('my-guard')).toBe(false);
  });
});
