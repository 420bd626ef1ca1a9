import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ParsedRequest } from '../fake-anthropic/conversation.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { bash, perSession, reply, write } from '../fake-anthropic/script.js';
import type { ScriptResult } from '../fake-anthropic/types.js';
import { runRalph } from '../harness.js';
import { claudeBinary, claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';

/**
 * Verified completion with the real Claude Code CLI (issue 12): the scripted model first claims
 * the story without fixing the code, so the project's test still fails; ralph rejects the claim
 * and writes the failure to progress.txt; the next claude process reads progress.txt, sees the
 * rejection, fixes the code, and ralph verifies it and completes. The model decides each reply
 * from what the conversation shows (the progress file's content, its own earlier tool calls and
 * their results), never from a counter.
 */

const LOOP = '.ralph/feature-verify';
const PROGRESS = `${LOOP}/progress.txt`;
const FIXED = 'export const mul = (a, b) => a * b;\n';

const flipPasses = `node -e 'const fs=require("fs");const f="${LOOP}/prd.json";const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories[0].passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")'`;

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

/** The model: reads progress.txt, then acts on what it found there and on its own results. */
function model(repo: string, seen: { rejectionShown: boolean }) {
  const commands = (request: ParsedRequest) =>
    request.toolUses().map((use) => (use.input as { command?: string }).command ?? '');
  const resultOf = (request: ParsedRequest, needle: string): string | undefined => {
    const use = request.toolUses().find((each) => JSON.stringify(each.input).includes(needle));
    return request.toolResults().find((result) => result.tool_use_id === use?.id)?.content;
  };
  return (request: ParsedRequest): ScriptResult => {
    const progress = resultOf(request, 'progress.txt');
    if (progress === undefined) return reply(bash(`cat ${PROGRESS}`, 'Read the progress log'));
    const rejected = progress.includes('STORY-001 rejected by ralph');
    const flipped = commands(request).some((command) => command.includes('passes=true'));
    if (flipped) return 'STORY-001 is done. <promise>COMPLETE</promise>';
    if (!rejected) {
      // A lazy model: it claims the story without touching the code.
      return reply('This looks done already.', bash(flipPasses, 'Mark the story passing'));
    }
    seen.rejectionShown = true;
    const wrote = request.toolUses().some((use) => use.name === 'Write');
    if (!wrote) {
      return reply(
        'ralph rejected my claim: the test fails. mul adds instead of multiplying.',
        write(join(repo, 'src', 'mul.js'), FIXED),
      );
    }
    const tested = resultOf(request, 'node --test');
    if (tested === undefined) return reply(bash('node --test test/mul.test.js', 'Run the test'));
    if (!tested.includes('pass 1')) throw new Error(`the fixed test still fails: ${tested}`);
    return reply(bash(flipPasses, 'Mark the story passing'));
  };
}

describe('ralph run with the real Claude Code CLI: verified completion', () => {
  it('rejects a claim while the test fails, shows the failure to the next iteration, and completes once it is fixed', async () => {
    sandbox = makeSandbox('ralph-verify-e2e-');
    const { repo, root } = sandbox;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('checkout', '-q', '-b', 'feature/verify');
    git('config', 'user.name', 'e2e');
    git('config', 'user.email', 'e2e@example.com');
    mkdirSync(join(repo, 'src'));
    mkdirSync(join(repo, 'test'));
    await writeFile(
      join(repo, 'package.json'),
      '{ "type": "module", "scripts": { "test": "node --test" } }\n',
    );
    await writeFile(join(repo, 'src', 'mul.js'), 'export const mul = (a, b) => a + b;\n');
    await writeFile(
      join(repo, 'test', 'mul.test.js'),
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { mul } from '../src/mul.js';\ntest('mul', () => assert.equal(mul(2, 3), 6));\n",
    );
    const seen = { rejectionShown: false };
    fake = await startFakeAnthropic(perSession(() => model(repo, seen)));
    const env = { ...claudeEnv({ baseUrl: fake.url, root }), RALPH_CLAUDE_BIN: claudeBinary() };

    expect((await runRalph(['init'], repo, env)).code).toBe(0);
    const prd = {
      description: 'arithmetic',
      createdAt: '2026-11-22T00:00:00Z',
      userStories: [
        {
          id: 'STORY-001',
          title: 'mul multiplies',
          description: 'src/mul.js exports mul(a, b) = a * b',
          acceptanceCriteria: ['mul(2, 3) is 6'],
          priority: 1,
          passes: false,
          notes: '',
          verify: 'node --test test/mul.test.js',
        },
      ],
    };
    await writeFile(join(repo, LOOP, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
    execFileSync('rm', [join(repo, LOOP, 'spec.md')]);
    mkdirSync(join(repo, '.ralph'), { recursive: true });
    await writeFile(join(repo, '.ralph', 'config.yaml'), 'quality_checks:\n  test: npm test\n');
    git('add', '-A');
    git('commit', '-qm', 'project');

    const run = await runRalph(
      ['run', '--dangerously-skip-permissions', '--pause', '0', '-n', '4'],
      repo,
      env,
    );
    expect(fake.scriptErrors).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'STORY-001 rejected by ralph: `node --test test/mul.test.js` failed',
    );
    expect(run.stdout).toContain('COMPLETE — every story passes');
    expect(seen.rejectionShown).toBe(true);
    expect(fake.sessions()).toHaveLength(2);
    expect(await readFile(join(repo, 'src', 'mul.js'), 'utf8')).toBe(FIXED);

    const evidence = (await readFile(join(repo, LOOP, 'evidence.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { storyId: string; iteration: number; kind: string; verdict: string },
      );
    expect(evidence.map((line) => [line.storyId, line.iteration, line.kind, line.verdict])).toEqual(
      [
        ['STORY-001', 1, 'integrity', 'pass'],
        ['STORY-001', 1, 'verify', 'fail'],
        ['STORY-001', 2, 'integrity', 'pass'],
        ['STORY-001', 2, 'verify', 'pass'],
        ['STORY-001', 2, 'quality', 'pass'],
        ['(final)', 2, 'quality', 'pass'],
      ],
    );
  }, 120_000);
});
