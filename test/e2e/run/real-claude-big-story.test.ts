import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { bash, perSession, reply, scriptedSteps } from '../fake-anthropic/script.js';
import { runRalph } from '../harness.js';
import { claudeBinary, claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';

/**
 * Issue 14, item 1 with the real Claude Code CLI (pinned 2.1.330): a 200 KiB story reaches the
 * model whole. ralph pipes the prompt to `claude -p` on stdin (an argument that size fails with
 * E2BIG); the fake Messages API plays a model that only works on the story when the request's
 * prompt holds all of it, up to its last line.
 */

const LOOP = '.ralph/feature-big';
const END = 'END-OF-THE-200-KIB-STORY';
const BIG = `${'Every imported row keeps its fields in order, trimmed, with dates as ISO-8601. '.repeat(2700)}${END}`;
const flipPasses = `node -e 'const fs=require("fs");const f="${LOOP}/prd.json";const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories[0].passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")'`;

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

describe('ralph run with a 200 KiB story and the real Claude Code CLI', () => {
  it('pipes the whole prompt to claude -p; the model sees the story to its end and completes it', async () => {
    expect(Buffer.byteLength(BIG)).toBeGreaterThan(200 * 1024);
    sandbox = makeSandbox('ralph-big-story-');
    const { repo, root } = sandbox;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('checkout', '-q', '-b', 'feature/big');

    fake = await startFakeAnthropic(
      perSession((first) => {
        const prompt = first.prompt();
        if (!prompt.includes('Work on **STORY-001:') || !prompt.includes(`${END}\n`))
          throw new Error(`the prompt did not hold the whole story (${prompt.length} chars)`);
        return scriptedSteps([
          reply('The story arrived whole.', bash(flipPasses, 'Mark the story passing')),
          'STORY-001 is done. <promise>COMPLETE</promise>',
        ]);
      }),
    );
    const env = { ...claudeEnv({ baseUrl: fake.url, root }), RALPH_CLAUDE_BIN: claudeBinary() };
    expect((await runRalph(['init'], repo, env)).code).toBe(0);
    const prd = {
      description: 'a big import',
      createdAt: '2026-11-23T00:00:00Z',
      userStories: [
        {
          id: 'STORY-001',
          title: 'Import the rows',
          description: BIG,
          acceptanceCriteria: ['rows import'],
          priority: 1,
          passes: false,
          notes: '',
        },
      ],
    };
    await writeFile(join(repo, LOOP, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
    execFileSync('rm', [join(repo, LOOP, 'spec.md')]);

    const run = await runRalph(
      ['run', '--dangerously-skip-permissions', '--pause', '0', '-n', '2', '--no-archive'],
      repo,
      env,
    );
    expect(fake.scriptErrors).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('COMPLETE — every story passes');
    expect(run.stdout).toContain('over context.tokenBudget');
    const requests = fake.messageRequests();
    expect(fake.sessions()).toHaveLength(1);
    expect(requests[0]?.prompt().length).toBeGreaterThan(200 * 1024);
    const after = JSON.parse(await readFile(join(repo, LOOP, 'prd.json'), 'utf8')) as typeof prd;
    expect(after.userStories[0]?.passes).toBe(true);
  }, 60_000);
});
