import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { apiError, bash, reply, scriptedSteps, sessionSequence } from '../fake-anthropic/script.js';
import { runRalph } from '../harness.js';
import { claudeBinary, claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';

/**
 * Retries end to end through the REAL Claude Code CLI (pinned 2.1.330): the fake Messages API
 * answers the first claude process with 529 overloaded; with CLAUDE_CODE_MAX_RETRIES=0 the CLI
 * gives up at once (result api_error_status 529, exit 1), ralph classifies that as transient,
 * backs off and runs the same iteration again as attempt 2, which finishes the story.
 */

const LOOP = '.ralph/feature-retry';

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

describe('ralph run retries a 529 from the real Claude Code CLI', () => {
  it('backs off and completes the story on attempt 2', async () => {
    sandbox = makeSandbox('ralph-529-e2e-');
    const { repo, root } = sandbox;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('checkout', '-q', '-b', 'feature/retry');
    const prdFile = join(repo, LOOP, 'prd.json');
    const flip = `node -e 'const fs=require("fs");const f="${prdFile}";const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories[0].passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")'`;

    fake = await startFakeAnthropic(
      sessionSequence([
        () => apiError(529, { message: 'Overloaded' }),
        scriptedSteps([
          reply('Marking the story done.', bash(flip, 'Mark STORY-001 passing')),
          'STORY-001 is done. <promise>COMPLETE</promise>',
        ]),
      ]),
    );
    const env = {
      ...claudeEnv({ baseUrl: fake.url, root, maxRetries: 0 }),
      RALPH_CLAUDE_BIN: claudeBinary(),
      RALPH_RETRY_BASE_DELAY_SECONDS: '0.5',
    };
    expect((await runRalph(['init'], repo, env)).code).toBe(0);
    const prd = {
      description: 'retry',
      userStories: [
        {
          id: 'STORY-001',
          title: 'Say hello',
          description: 'd',
          acceptanceCriteria: ['works'],
          priority: 1,
          passes: false,
          notes: '',
        },
      ],
    };
    await writeFile(prdFile, `${JSON.stringify(prd, null, 2)}\n`);
    execFileSync('rm', [join(repo, LOOP, 'spec.md')]);

    const run = await runRalph(
      ['run', '--dangerously-skip-permissions', '--pause', '0', '--json'],
      repo,
      env,
    );
    expect(fake.scriptErrors).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const events = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const finished = events.filter((event) => event.type === 'iteration_finished');
    expect(finished.map((event) => [event.iteration, event.attempt, event.classification])).toEqual(
      [
        [1, 1, 'transient'],
        [1, 2, 'none'],
      ],
    );
    expect(finished[0]).toMatchObject({ outcome: 'error', willRetry: true, exitCode: 1 });
    expect(String(finished[0]?.classificationWhy)).toContain('529');
    const wait = events.find((event) => event.type === 'wait_started');
    expect(wait).toMatchObject({ reason: 'retry', iteration: 1, attempt: 2 });
    expect(Number(wait?.durationMs)).toBeGreaterThanOrEqual(400);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', state: 'COMPLETE', exitCode: 0 });

    // Two claude processes: the API saw one request from the first, the whole script from the second.
    expect(fake.sessions()).toHaveLength(2);
    const first = await readFile(join(repo, LOOP, 'logs', 'iteration-1-attempt-1.jsonl'), 'utf8');
    expect(first).toContain('"api_error_status":529');
    const second = await readFile(join(repo, LOOP, 'logs', 'iteration-1-attempt-2.jsonl'), 'utf8');
    expect(second).toContain('<promise>COMPLETE</promise>');
    expect(JSON.parse(await readFile(prdFile, 'utf8'))).toMatchObject({
      userStories: [{ passes: true }],
    });
  }, 90_000);
});
