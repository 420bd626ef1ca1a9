import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolvePolicy } from './policy.js';
import { startGuardService, type GuardService } from './service.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-service-')));
let service: GuardService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start() {
  const policy = resolvePolicy({
    projectRoot: root,
    homeDir: join(root, 'home'),
    unattended: true,
  });
  service = await startGuardService({ policy, auditLog: join(root, 'logs', 'audit.jsonl') });
  return service;
}

async function post(url: string, body: string, token: string | undefined) {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  const json = (await response.json()) as {
    hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
  };
  return { status: response.status, ...json.hookSpecificOutput };
}

const input = (command: string) =>
  JSON.stringify({ session_id: 's', cwd: root, tool_name: 'Bash', tool_input: { command } });

describe('the guard service', () => {
  it('answers with the policy, 200 always, on 127.0.0.1', async () => {
    const { url, token } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/pre-tool-use$/);
    expect(await post(url, input('npm test'), token)).toMatchObject({
      status: 200,
      permissionDecision: 'allow',
    });
    expect(await post(url, input('rm -rf /'), token)).toMatchObject({
      status: 200,
      permissionDecision: 'deny',
    });
    const audit = readFileSync(join(root, 'logs', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(audit).toHaveLength(2);
  });

  it('denies (never errors) without the token, with a wrong one, or with a bad body', async () => {
    const { url, token } = await start();
    for (const [body, auth] of [
      [input('npm test'), undefined],
      [input('npm test'), 'wrong'],
      ['not json', token],
      ['{}', token],
    ] as const) {
      expect(await post(url, body, auth)).toMatchObject({
        status: 200,
        permissionDecision: 'deny',
      });
    }
  });

  it('reports a failure when the server stops while in use, not when closed on purpose', async () => {
    const first = await start();
    const failures: Error[] = [];
    first.onFailure((error) => failures.push(error));
    first.server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(failures).toHaveLength(1);
    const second = await startGuardService({
      policy: resolvePolicy({ projectRoot: root, homeDir: root, unattended: true }),
      auditLog: join(root, 'a.jsonl'),
    });
    second.onFailure((error) => failures.push(error));
    await second.close();
    expect(failures).toHaveLength(1);
  });
});

process.on('exit', () => {
  rmSync(root, { recursive: true, force: true });
});
