import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolvePolicy } from './policy.js';
import { startGuardService, type GuardService } from './service.js';

let service: GuardService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe('the guard service with an audit log the agent swapped for a link', () => {
  it('denies the call, saying why, and writes nothing through the link', async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-link-')));
    const victim = join(root, 'home', '.bashrc');
    mkdirSync(join(root, 'home'));
    mkdirSync(join(root, 'logs'));
    writeFileSync(victim, 'export A=1\n');
    const auditLog = join(root, 'logs', 'audit.jsonl');
    symlinkSync(victim, auditLog);
    const policy = resolvePolicy({
      projectRoot: root,
      homeDir: join(root, 'home'),
      unattended: true,
    });
    service = await startGuardService({ policy, auditLog });
    const response = await fetch(service.url, {
      method: 'POST',
      body: JSON.stringify({
        session_id: 's',
        cwd: root,
        tool_name: 'Bash',
        tool_input: { command: 'npm test' },
      }),
      headers: { authorization: `Bearer ${service.token}` },
    });
    const { hookSpecificOutput } = (await response.json()) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(hookSpecificOutput.permissionDecision).toBe('deny');
    expect(hookSpecificOutput.permissionDecisionReason).toContain(
      `ralph refused to use ${auditLog}: it is a symbolic link`,
    );
    expect(readFileSync(victim, 'utf8')).toBe('export A=1\n');
  });
});
