import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ParsedRequest } from '../fake-anthropic/conversation.js';
import { bash, reply, scriptedSteps, toolUse } from '../fake-anthropic/script.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { runRalph } from '../harness.js';
import { claudeBinary, claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';

/**
 * What the README says about `ralph run` without --dangerously-skip-permissions, checked with the
 * real Claude Code CLI against the fake Messages API: the guard's "allow" approves a shell command
 * outright (acceptEdits alone would refuse `node -e …`), a tool the guard does not judge
 * (WebFetch) is refused, and with the guard off so is the command.
 */

const LOOP = '.ralph/feature-perms';
let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
  sandbox = undefined;
  fake = undefined;
});

const flipPasses = `node -e 'const fs=require("fs");const f="${LOOP}/prd.json";const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories[0].passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")'`;

async function runWithoutSkip(guard: boolean) {
  const box = makeSandbox('ralph-perms-e2e-');
  sandbox = box;
  fake = await startFakeAnthropic(
    scriptedSteps([
      reply(toolUse('WebFetch', { url: 'http://127.0.0.1:9/x', prompt: 'read it' })),
      reply(bash(flipPasses, 'Mark the story passing')),
      'Done. <promise>COMPLETE</promise>',
    ]),
  );
  const env: Record<string, string> = {
    ...claudeEnv({ baseUrl: fake.url, root: box.root }),
    RALPH_CLAUDE_BIN: claudeBinary(),
  };
  delete env.IS_SANDBOX; // not needed without the flag, root or not
  const git = (...args: string[]) => execFileSync('git', args, { cwd: box.repo, stdio: 'ignore' });
  git('checkout', '-q', '-b', 'feature/perms');
  git('config', 'user.name', 'e2e');
  git('config', 'user.email', 'e2e@example.com');
  mkdirSync(join(box.repo, '.ralph'), { recursive: true });
  expect((await runRalph(['init'], box.repo, env)).code).toBe(0);
  if (!guard) writeFileSync(join(box.repo, '.ralph', 'config.yaml'), 'guard:\n  enabled: false\n');
  const prd = {
    description: 'perms',
    createdAt: '2026-11-23T00:00:00Z',
    userStories: [
      {
        id: 'STORY-001',
        title: 't',
        acceptanceCriteria: ['a'],
        priority: 1,
        passes: false,
        notes: '',
      },
    ],
  };
  writeFileSync(join(box.repo, LOOP, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
  execFileSync('rm', ['-f', join(box.repo, LOOP, 'spec.md')]);
  const run = await runRalph(['run', '--pause', '0', '-n', '1', '--skip-preflight'], box.repo, env);
  const requests = fake.messageRequests();
  const resultAfter = (turn: number) =>
    requests
      .find((request: ParsedRequest) => request.assistantTurns().length === turn)
      ?.toolResults()
      .at(-1);
  const passes = (
    JSON.parse(readFileSync(join(box.repo, LOOP, 'prd.json'), 'utf8')) as {
      userStories: { passes: boolean }[];
    }
  ).userStories[0]?.passes;
  return { run, resultAfter, passes };
}

describe('ralph run without --dangerously-skip-permissions (real Claude Code CLI)', () => {
  it('runs the shell commands the guard allows, and refuses WebFetch', async () => {
    const { run, resultAfter, passes } = await runWithoutSkip(true);
    expect(resultAfter(1)?.is_error, JSON.stringify(resultAfter(1))).toBe(true);
    expect(resultAfter(2)?.is_error, JSON.stringify(resultAfter(2))).toBe(false);
    expect(passes).toBe(true);
    expect(run.code, run.stdout + run.stderr).toBe(0);
  }, 90_000);

  it('with the guard off, acceptEdits refuses the same command', async () => {
    const { resultAfter, passes } = await runWithoutSkip(false);
    expect(resultAfter(2)?.is_error, JSON.stringify(resultAfter(2))).toBe(true);
    expect(passes).toBe(false);
  }, 90_000);

  it('the README says so', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).not.toMatch(/acceptEdits`, which lets it edit files but not run commands/);
    expect(readme).toMatch(/every shell command the guard allows/);
  });
});
