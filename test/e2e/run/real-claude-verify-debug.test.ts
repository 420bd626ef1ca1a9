import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ParsedRequest } from '../fake-anthropic/conversation.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import {
  bash,
  perSession,
  reply,
  scriptedSteps,
  toolUse,
  write,
} from '../fake-anthropic/script.js';
import { runRalph } from '../harness.js';
import { claudeBinary, claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';

/**
 * `ralph verify` and `ralph debug` driving the real Claude Code CLI (pinned) against a fake
 * Messages API. The fake model decides from what the conversation shows — the prompt ralph
 * wrote and the tool results the CLI sends back — never from a call counter: verify's verdict
 * follows what its grep found, debug's state follows the test output and the state file.
 * No --dangerously-skip-permissions: the model's Bash calls pass through ralph's guard.
 */

const LOOP = '.ralph/feature-e2e';

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

function lastToolResult(request: ParsedRequest): string {
  return request.toolResults().at(-1)?.content ?? '';
}

function named(request: ParsedRequest, pattern: RegExp): string {
  const found = pattern.exec(request.prompt())?.[1];
  if (found === undefined) throw new Error(`not in the prompt: ${String(pattern)}`);
  return found;
}

async function project(): Promise<{
  repo: string;
  root: string;
  git: (...args: string[]) => void;
}> {
  sandbox = makeSandbox('ralph-verify-e2e-');
  const { repo, root } = sandbox;
  const git = (...args: string[]) => {
    execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  };
  git('config', 'user.name', 'e2e');
  git('config', 'user.email', 'e2e@example.com');
  git('checkout', '-q', '-b', 'feature/e2e');
  mkdirSync(join(repo, 'src'));
  mkdirSync(join(repo, 'test'));
  mkdirSync(join(repo, LOOP), { recursive: true });
  await writeFile(join(repo, 'package.json'), '{ "type": "module" }\n');
  await writeFile(
    join(repo, 'test', 'add.test.js'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
  );
  await writeFile(
    join(repo, LOOP, 'spec.md'),
    '# Add\n\n## Goals\n\n- `add(a, b)` returns the sum.\n',
  );
  await writeFile(
    join(repo, LOOP, 'prd.json'),
    `${JSON.stringify({ userStories: [{ id: 'STORY-001', title: 'add', description: 'add', acceptanceCriteria: ['sum'], priority: 1, passes: true, notes: '' }] }, null, 2)}\n`,
  );
  return { repo, root, git };
}

describe('ralph verify and ralph debug with the real Claude Code CLI', () => {
  it('verify: NEEDS_WORK while the code has a TODO the model finds, VERIFIED once it is gone', async () => {
    const { repo, root, git } = await project();
    await writeFile(
      join(repo, 'src', 'add.js'),
      '// TODO: handle strings\nexport const add = (a, b) => a + b;\n',
    );
    git('add', 'src', 'test', 'package.json');
    git('commit', '-qm', 'add');

    fake = await startFakeAnthropic(
      perSession((first) => {
        const report = join(repo, named(first, /- write the report to: (.+)/));
        return scriptedSteps([
          reply(
            'Checking the goals against the code.',
            bash('node --test && grep -rn TODO src || true', 'Run the tests and look for stubs'),
          ),
          (request) => {
            const seen = lastToolResult(request);
            const stub = seen.includes('TODO');
            const status = stub ? 'NEEDS_WORK' : 'VERIFIED';
            return reply(
              write(
                report,
                `# Verification\n\n| goal | status |\n| --- | --- |\n| add returns the sum | ${seen.includes('pass 1') ? 'achieved' : 'not achieved'} |\n\n## Stub detection\n\n${stub ? 'src/add.js still has a TODO.' : 'None.'}\n\n\`\`\`ralph-verdict\n${JSON.stringify({ status, summary: stub ? 'a TODO is left in src/add.js' : 'the sum is delivered and tested', goals: { total: 1, achieved: 1 } })}\n\`\`\`\n`,
              ),
            );
          },
          'The report is written.',
        ]);
      }),
    );
    const env = { ...claudeEnv({ baseUrl: fake.url, root }), RALPH_CLAUDE_BIN: claudeBinary() };

    const first = await runRalph(['verify'], repo, env);
    expect(fake.scriptErrors).toEqual([]);
    expect(first.stderr).not.toContain('internal error');
    expect(first.code, first.stdout + first.stderr).toBe(1);
    expect(first.stdout).toContain('Verification: NEEDS_WORK — a TODO is left in src/add.js');
    expect(first.stdout).toContain('src/add.js:1 todo: // TODO: handle strings');
    const report = await readFile(join(repo, LOOP, 'VERIFICATION.md'), 'utf8');
    expect(report).toContain('| add returns the sum | achieved |');
    expect(report).toContain('**Status: NEEDS_WORK**');

    await writeFile(join(repo, 'src', 'add.js'), 'export const add = (a, b) => a + b;\n');
    git('commit', '-qam', 'drop the TODO');
    const second = await runRalph(['verify', '--profile', 'budget'], repo, env);
    expect(fake.scriptErrors).toEqual([]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('Verification: VERIFIED — the sum is delivered and tested');
    expect(await readFile(join(repo, LOOP, 'VERIFICATION.md'), 'utf8')).toContain(
      '**Status: VERIFIED**',
    );
    expect(fake.requests.at(-1)?.conversation?.model).toContain('haiku');
  }, 90_000);

  it('debug: a reproduced failure is a checkpoint (exit 10); --continue finds the root cause from the state file (exit 0)', async () => {
    const { repo, root, git } = await project();
    await writeFile(join(repo, 'src', 'add.js'), 'export const add = (a, b) => a - b;\n');
    git('add', 'src', 'test', 'package.json');
    git('commit', '-qm', 'add');

    fake = await startFakeAnthropic(
      perSession((first) => {
        const state = join(repo, named(first, /The debug state: (\S+) /));
        const seen = (request: ParsedRequest) =>
          request
            .toolResults()
            .map((each) => each.content)
            .join('\n');
        // What the conversation shows decides: the grep's hit is the cause; a failing test run
        // is a reproduction; a state file that already records one sends the model to the code.
        const found = (request: ParsedRequest) => seen(request).includes('1:export const add');
        return scriptedSteps([
          reply(toolUse('Read', { file_path: state })),
          (request) =>
            seen(request).includes('reproduced: add(2, 3) fails')
              ? reply(bash('grep -n "a - b" src/add.js', 'H1: the operator is wrong'))
              : reply(bash('node --test 2>&1 | tail -20', 'Reproduce')),
          (request) =>
            reply(
              toolUse('Edit', {
                file_path: state,
                old_string: '## Evidence\n',
                new_string: found(request)
                  ? '## Evidence\n\n- H1 (operator): grep shows a - b: CONFIRMED\n'
                  : `## Evidence\n\n- ${seen(request).includes('fail 1') ? 'reproduced: add(2, 3) fails (expected 5)' : 'not reproduced'}\n`,
              }),
            ),
          (request) =>
            reply(
              toolUse('Edit', {
                file_path: state,
                old_string: '{"state":"IN_PROGRESS"}',
                new_string: JSON.stringify(
                  found(request)
                    ? {
                        state: 'ROOT_CAUSE_FOUND',
                        summary: 'add subtracts',
                        rootCause: 'src/add.js:1 uses a - b',
                      }
                    : { state: 'CHECKPOINT_REACHED', summary: 'reproduced; next: read src/add.js' },
                ),
              }),
            ),
          'Session over; the state is in the file.',
        ]);
      }),
    );
    const env = { ...claudeEnv({ baseUrl: fake.url, root }), RALPH_CLAUDE_BIN: claudeBinary() };

    const first = await runRalph(['debug', 'add(2, 3) is not 5'], repo, env);
    expect(fake.scriptErrors).toEqual([]);
    expect(first.stderr).not.toContain('internal error');
    expect(first.code, first.stdout + first.stderr).toBe(10);
    expect(first.stdout).toContain(
      'Debug session 1: CHECKPOINT_REACHED — reproduced; next: read src/add.js',
    );

    const second = await runRalph(['debug', '--continue'], repo, env);
    expect(fake.scriptErrors).toEqual([]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('Debug session 2: ROOT_CAUSE_FOUND — add subtracts');
    expect(second.stdout).toContain('root cause: src/add.js:1 uses a - b');
    const state = await readFile(join(repo, LOOP, 'debug-state.md'), 'utf8');
    expect(state).toContain('## Problem\n\nadd(2, 3) is not 5');
    expect(state).toContain('- reproduced: add(2, 3) fails (expected 5)');
    expect(state).toContain('- H1 (operator): grep shows a - b: CONFIRMED');
    expect(state).toMatch(/- session 1, .* → CHECKPOINT_REACHED/);
    expect(state).toMatch(/- session 2, .* → ROOT_CAUSE_FOUND/);
  }, 90_000);
});
