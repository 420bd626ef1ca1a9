import { chmod, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseStopHookCommand, isRalphStopHook, shellQuote } from './hook-command.js';

describe('chooseHookCommand', () => {
  async function install(): Promise<{ root: string; bin: string }> {
    const root = await mkdtemp(join(tmpdir(), 'ralph-hookcmd-'));
    const bin = join(root, 'lib', 'node_modules', 'ralph', 'dist', 'cli', 'bin.js');
    await mkdir(join(bin, '..'), { recursive: true });
    await writeFile(bin, '#!/usr/bin/env node\n');
    await chmod(bin, 0o755);
    return { root, bin };
  }

  it('writes `ralph stop-hook` when ralph on PATH is this installation', async () => {
    const { root, bin } = await install();
    await mkdir(join(root, 'bin'));
    await symlink(bin, join(root, 'bin', 'ralph'));
    const choice = await chooseStopHookCommand({
      env: { PATH: `/nonexistent:${join(root, 'bin')}` },
      execPath: '/usr/bin/node',
      binPath: bin,
    });
    expect(choice).toEqual({ prefix: 'ralph', form: 'path', warnings: [] });
  });

  it('writes the absolute node and bin.js when ralph on PATH is another one, or missing', async () => {
    const { root, bin } = await install();
    const other = await install();
    await mkdir(join(root, 'bin'));
    await symlink(other.bin, join(root, 'bin', 'ralph'));
    for (const PATH of [join(root, 'bin'), '']) {
      const choice = await chooseStopHookCommand({
        env: { PATH },
        execPath: '/opt/node 20/bin/node',
        binPath: bin,
      });
      expect(choice.form).toBe('absolute');
      expect(choice.prefix).toBe(`'/opt/node 20/bin/node' ${bin}`);
    }
  });

  it("warns when the installation is npx's cache", async () => {
    const choice = await chooseStopHookCommand({
      env: { PATH: '' },
      execPath: '/usr/bin/node',
      binPath: '/root/.npm/_npx/abc/node_modules/ralph/dist/cli/bin.js',
    });
    expect(choice.warnings.join('')).toMatch(/npx/);
  });
});

describe('shell words', () => {
  it('quotes only when needed', () => {
    expect(shellQuote('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellQuote("/a b/it's")).toBe(`'/a b/it'\\''s'`);
  });

  it('recognises ralph Stop hooks in every form', () => {
    expect(isRalphStopHook('ralph stop-hook')).toBe(true);
    expect(isRalphStopHook("'/usr/bin/node' '/x/dist/cli/bin.js' stop-hook")).toBe(true);
    expect(isRalphStopHook("'/usr/bin/node' '/x/dist/cli/bin.cjs' stop-hook")).toBe(true);
    expect(isRalphStopHook('npx ralph stop-hook ')).toBe(true);
    expect(isRalphStopHook('other-tool stop-hook')).toBe(false);
    expect(isRalphStopHook('ralph guard')).toBe(false);
  });
});
