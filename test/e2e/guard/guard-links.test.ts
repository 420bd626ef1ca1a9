import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { outcome, RALPH_BIN, spawnForTest } from '../harness.js';

/** `ralph guard` (the hook command) in a project where the agent planted links in .ralph/logs. */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-links-')));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

async function guard(project: string, home: string) {
  const child = spawnForTest(process.execPath, [RALPH_BIN, 'guard'], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', HOME: home },
  });
  child.stdin?.end(
    JSON.stringify({
      session_id: 's-1',
      cwd: project,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'npm test' },
      tool_use_id: 't-1',
    }),
  );
  const result = await outcome(child);
  const output = JSON.parse(result.stdout) as {
    hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
  };
  return { code: result.code, ...output.hookSpecificOutput };
}

function project(name: string): { project: string; home: string; logs: string } {
  const dir = join(root, name);
  const home = join(dir, 'home');
  const logs = join(dir, 'project', '.ralph', 'logs');
  mkdirSync(join(dir, 'project', '.git'), { recursive: true });
  mkdirSync(logs, { recursive: true });
  mkdirSync(home);
  return { project: join(dir, 'project'), home, logs };
}

describe('ralph guard with links in .ralph/logs', () => {
  it('denies, saying why, when audit.jsonl is a link, and leaves its target alone', async () => {
    const { project: dir, home, logs } = project('audit');
    writeFileSync(join(home, '.bashrc'), 'export A=1\n');
    symlinkSync(join(home, '.bashrc'), join(logs, 'audit.jsonl'));
    const result = await guard(dir, home);
    expect(result.code).toBe(0);
    expect(result.permissionDecision).toBe('deny');
    expect(result.permissionDecisionReason).toContain(
      `ralph refused to use ${join(logs, 'audit.jsonl')}: it is a symbolic link`,
    );
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('export A=1\n');
  });

  it('does not create the target of a dangling link planted as logs/.gitignore', async () => {
    const { project: dir, home, logs } = project('ignore');
    const target = join(home, '.profile');
    symlinkSync(target, join(logs, '.gitignore'));
    const result = await guard(dir, home);
    expect(result.permissionDecision).toBe('allow');
    expect(existsSync(target)).toBe(false);
  });
});
