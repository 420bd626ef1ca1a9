import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  apiError,
  bash,
  perSession,
  reply,
  scriptedSteps,
  write,
} from '../fake-anthropic/script.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import type { Script } from '../fake-anthropic/types.js';
import { claudeEnv, makeSandbox, type Sandbox } from './env.js';
import { runClaude } from './run-claude.js';

// The real, pinned Claude Code CLI against the fake Messages API on 127.0.0.1 (no network).
const TIMEOUT = 30_000;

let fake: FakeAnthropic | undefined;
let box: Sandbox | undefined;

afterEach(async () => {
  await fake?.close();
  box?.cleanup();
  fake = undefined;
  box = undefined;
});

/** `makeScript` gets the repo path, since Write needs absolute paths. */
async function setup(makeScript: (repo: string) => Script, maxRetries = 1) {
  box = makeSandbox();
  fake = await startFakeAnthropic(makeScript(box.repo));
  const env = claudeEnv({ baseUrl: fake.url, root: box.root, maxRetries });
  return { repo: box.repo, root: box.root, env, fake };
}

describe('real Claude Code CLI against the fake Messages API', () => {
  it(
    'runs a scripted Write → Bash → text session and reports a successful result',
    async () => {
      const { repo, env, fake } = await setup((dir) =>
        scriptedSteps([
          reply(write(join(dir, 'a.txt'), 'hello from fake\n')),
          reply(bash('echo hi > b.txt', 'Write hi to b.txt')),
          'All done. <promise>COMPLETE</promise>',
        ]),
      );

      const run = await runClaude({ cwd: repo, env, prompt: 'create the files' });

      expect(fake.scriptErrors).toEqual([]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('hello from fake\n');
      expect(readFileSync(join(repo, 'b.txt'), 'utf8')).toBe('hi\n');
      expect(run.result).toMatchObject({
        is_error: false,
        num_turns: 3,
        result: 'All done. <promise>COMPLETE</promise>',
        session_id: fake.sessions()[0],
      });
      // 3 × (100 in / 20 out). 2.1.330 maps sonnet to claude-sonnet-5-5 at $2/$10 per Mtok;
      // 2.1.197's claude-sonnet-5 cost $0.0018 for the same usage (facts §4).
      expect(run.result?.total_cost_usd).toBeCloseTo(0.0012, 6);
      const last = fake.messageRequests().at(-1)!;
      expect(last.toolResults().map((r) => r.tool_use_id)).toEqual([
        'toolu_fake_1',
        'toolu_fake_2',
      ]);
      expect(last.toolResults().every((r) => !r.is_error)).toBe(true);
      expect(fake.messageRequests().every((r) => r.stream && r.tools.includes('Bash'))).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'gives up at once on a 529 marked x-should-retry: false',
    async () => {
      const { repo, env, fake } = await setup(() => () => apiError(529, { retry: false }));

      const run = await runClaude({ cwd: repo, env, prompt: 'hello' });

      expect(run.code).toBe(1);
      expect(run.result).toMatchObject({ is_error: true, api_error_status: 529 });
      expect(fake.messageRequests()).toHaveLength(1); // no retry, so no backoff wait either
    },
    TIMEOUT,
  );

  it(
    'falls back to a non-streaming request when the stream is unusable, and takes its JSON',
    async () => {
      // A JSON body in reply to stream:true; the CLI re-asks without `stream`.
      const { repo, env, fake } = await setup(
        () => (request) =>
          request.stream
            ? { raw: '{"not":"a stream"}', contentType: 'application/json' }
            : `prompt was: ${request.prompt()}`,
      );

      const run = await runClaude({ cwd: repo, env, prompt: 'say hi' });

      expect(run.code).toBe(0);
      expect(run.result).toMatchObject({ is_error: false, result: 'prompt was: say hi' });
      expect(fake.messageRequests().map((r) => r.stream)).toEqual([true, false]);
    },
    TIMEOUT,
  );

  it(
    'continues one more turn when a Stop hook blocks, with the reason in the next request',
    async () => {
      const reason = 'STOP-HOOK: not done yet, keep working';
      const { repo, root, env, fake } = await setup(() =>
        scriptedSteps(['I think I am finished.', 'Now really done. <promise>COMPLETE</promise>']),
      );
      const hookLog = join(root, 'stop-hook.jsonl');
      const hook = join(root, 'stop-hook.mjs');
      writeFileSync(hook, stopHookSource(hookLog, reason));
      const settings = {
        hooks: {
          Stop: [{ hooks: [{ type: 'command', command: `"${process.execPath}" "${hook}"` }] }],
        },
      };

      const run = await runClaude({
        cwd: repo,
        env,
        prompt: 'finish the task',
        args: ['--settings', JSON.stringify(settings)],
      });

      expect(fake.scriptErrors).toEqual([]);
      expect(run.code).toBe(0);
      expect(run.result).toMatchObject({
        is_error: false,
        result: 'Now really done. <promise>COMPLETE</promise>',
      });
      const requests = fake.messageRequests();
      expect(requests).toHaveLength(2);
      // 2.1.330 sends the hook's reason as a role:"system" message (2.1.197 used a user text).
      expect(requests[1]!.systemMessages().join('\n')).toContain(reason);
      const inputs = readFileSync(hookLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { stop_hook_active: boolean; last_assistant_message: string });
      expect(inputs.map((i) => i.stop_hook_active)).toEqual([false, true]);
      expect(inputs[0]!.last_assistant_message).toBe('I think I am finished.');
    },
    TIMEOUT,
  );

  it(
    'gives each claude process its own script, chosen from its prompt',
    async () => {
      const { repo, env, fake } = await setup(() =>
        perSession((first) => {
          const story = /STORY-\d+/.exec(first.prompt())?.[0] ?? 'none';
          return scriptedSteps([
            reply(bash(`echo ${story} >> done.txt`)),
            `${story} finished. <promise>COMPLETE</promise>`,
          ]);
        }),
      );

      const first = await runClaude({ cwd: repo, env, prompt: 'Implement STORY-001' });
      const second = await runClaude({ cwd: repo, env, prompt: 'Implement STORY-002' });

      expect([first.code, second.code]).toEqual([0, 0]);
      expect(second.result?.result).toBe('STORY-002 finished. <promise>COMPLETE</promise>');
      expect(readFileSync(join(repo, 'done.txt'), 'utf8')).toBe('STORY-001\nSTORY-002\n');
      expect(fake.sessions()).toEqual([first.result?.session_id, second.result?.session_id]);
    },
    TIMEOUT,
  );
});

/** Blocks the first Stop with `reason`, lets the second through, and logs every input. */
function stopHookSource(logFile: string, reason: string): string {
  return `import { appendFileSync, readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
appendFileSync(${JSON.stringify(logFile)}, JSON.stringify(input) + '\\n');
if (!input.stop_hook_active) {
  process.stdout.write(JSON.stringify({ decision: 'block', reason: ${JSON.stringify(reason)} }));
}
`;
}
