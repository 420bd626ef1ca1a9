import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { resolvePolicy } from './policy.js';
import { startGuardService, type GuardService } from './service.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-service-')));
let service: GuardService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start(timeBudgetMs?: number) {
  const policy = resolvePolicy({
    projectRoot: root,
    homeDir: join(root, 'home'),
    unattended: true,
  });
  service = await startGuardService({
    policy,
    auditLog: join(root, 'logs', 'audit.jsonl'),
    timeBudgetMs,
  });
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

  it('denies a call over its time budget at once, replaces the busy worker, and never blocks the event loop', async () => {
    const budget = 20;
    const { url, token } = await start(budget);
    // Warm: the worker has loaded its parser, so the budget alone counts.
    expect(await post(url, input('npm test'), token)).toMatchObject({
      permissionDecision: 'allow',
    });
    let longestGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const at = performance.now();
      longestGap = Math.max(longestGap, at - last);
      last = at;
    }, 2);
    // Thousands of commands, each judged: far more than 20 ms of work, far less than the size cap.
    const heavy = 'ls src; cat a.txt | grep x > out.txt; '.repeat(1500);
    const started = performance.now();
    const answer = await post(url, input(heavy), token);
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    expect(answer).toMatchObject({ status: 200, permissionDecision: 'deny' });
    expect(answer.permissionDecisionReason).toMatch(/longer than 20 ms/);
    // Generous for a shared CI machine, yet far below any hook timeout.
    expect(elapsed).toBeLessThan(budget + 1000);
    expect(longestGap).toBeLessThan(250);
    expect(service?.workersStarted()).toBe(2);
    // The fresh worker judges the next call.
    expect(await post(url, input('npm test'), token)).toMatchObject({
      permissionDecision: 'allow',
    });
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
