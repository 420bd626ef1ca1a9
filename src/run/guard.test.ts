import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessGroups } from '../agents/process-groups.js';
import { spawnStreaming } from '../agents/spawn.js';
import { startRunGuard, type RunGuardInput } from './guard.js';

/** The fail-closed half that lives in ralph: a failing guard service takes the agent down. */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-run-guard-')));
const loopDir = join(root, '.ralph', 'loop');
mkdirSync(loopDir, { recursive: true });
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
const input = (overrides: Partial<RunGuardInput> = {}): RunGuardInput => ({
  cwd: root,
  homeDir: root,
  loopDir,
  settings: {},
  processGroups: createProcessGroups(),
  onFailure: () => undefined,
  ...overrides,
});

describe('startRunGuard', () => {
  it('installs an HTTP hook and passes the token through the environment, not argv', async () => {
    const guard = await startRunGuard(input());
    expect(guard).toBeDefined();
    const options = guard?.apply({ settings: undefined, env: { A: '1' } }) as unknown as {
      settings: {
        hooks: {
          PreToolUse: {
            matcher: string;
            hooks: { type: string; url: string; headers: Record<string, string> }[];
          }[];
        };
      };
      env: Record<string, string>;
    };
    const [group] = options.settings.hooks.PreToolUse;
    expect(group?.matcher).toBe('*');
    expect(group?.hooks[0]).toMatchObject({
      type: 'http',
      url: guard?.service.url,
      headers: { Authorization: 'Bearer $RALPH_GUARD_TOKEN' },
    });
    expect(options.env).toMatchObject({ A: '1', RALPH_GUARD_TOKEN: guard?.service.token });
    expect(JSON.stringify(options.settings)).not.toContain(guard?.service.token ?? '?');
    await guard?.close();
  });

  it('kills the running agent at once when the guard service fails', async () => {
    const failures: string[] = [];
    const processGroups = createProcessGroups();
    const guard = await startRunGuard(
      input({ processGroups, onFailure: (error) => failures.push(error.message) }),
    );
    const agent = spawnStreaming('sleep', ['30'], {
      cwd: root,
      env: { PATH: process.env.PATH },
      timeoutMs: 0,
      onLine: () => undefined,
      processGroups,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    guard?.service.server.close();
    const result = await agent;
    expect(result.signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(10_000); // not sleep's 30 s
    expect(failures).toHaveLength(1);
    expect(guard?.failure()).toBeInstanceOf(Error);
  });

  it('is off with guard.enabled: false', async () => {
    expect(await startRunGuard(input({ settings: { enabled: false } }))).toBeUndefined();
  });
});
