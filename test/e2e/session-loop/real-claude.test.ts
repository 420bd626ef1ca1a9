import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ParsedRequest } from '../fake-anthropic/conversation.js';
import { perSession, reply, scriptedSteps } from '../fake-anthropic/script.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { runRalph } from '../harness.js';
import { claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';
import { runClaude } from '../real-claude/run-claude.js';
import { loopFiles } from './helpers.js';

/**
 * In-session loops end to end: `ralph setup --stop-hook` and `ralph loop start` in a project,
 * then the real, pinned Claude Code CLI (`claude -p`) against the fake Messages API. Claude Code
 * runs the hook command that setup wrote, exactly as it would for a user.
 */

const TIMEOUT = 60_000;
const PROMPT = 'Loop prompt:\n---\nmake "it" work ünï\n---\niteration: 99\n';

let fake: FakeAnthropic | undefined;
let box: Sandbox | undefined;

afterEach(async () => {
  await fake?.close();
  box?.cleanup();
  fake = undefined;
  box = undefined;
});

/**
 * How many block reasons carrying `body` a request holds. Claude Code 2.1.330 sends each one
 * twice: a user text `Stop hook feedback:\n<reason>` (the reason verbatim, which is what this
 * counts) and a system message `Stop hook blocking error from command: "…": <reason>`.
 */
function blockReasonsSeen(request: ParsedRequest, body: string): number {
  const feedback = request.messages.flatMap((message) =>
    message.role === 'user'
      ? message.content.filter(
          (block) => block.type === 'text' && block.text === `Stop hook feedback:\n${body}`,
        )
      : [],
  );
  const systemForm = request
    .systemMessages()
    .filter(
      (text) =>
        /^Stop hook blocking error from command: .*stop-hook": /s.test(text) && text.endsWith(body),
    );
  expect(systemForm.length).toBe(feedback.length);
  return feedback.length;
}

async function ralph(args: string[], repo: string, env: Record<string, string>) {
  const result = await runRalph(args, repo, env);
  expect(result.code, result.stderr).toBe(0);
  return result;
}

describe('ralph loop with the real Claude Code CLI', () => {
  it(
    'continues one session three times with the prompt, then ends at the promise',
    async () => {
      box = makeSandbox('ralph-session-loop-');
      fake = await startFakeAnthropic(
        scriptedSteps([
          'First pass: scaffolded, tests still fail.',
          'Second pass: two tests fail. I am not DONE.',
          'Third pass: one test fails. DONE soon, <promise>NOT YET</promise>.',
          'All tests pass. <promise>DONE</promise>',
        ]),
      );
      const env = claudeEnv({ baseUrl: fake.url, root: box.root });
      const { repo } = box;
      await ralph(['setup', '--stop-hook'], repo, env);
      const started = await ralph(
        [
          'loop',
          'start',
          PROMPT,
          '--completion-promise',
          'DONE',
          '--max-iterations',
          '10',
          '--json',
        ],
        repo,
        env,
      );
      const { id } = JSON.parse(started.stdout) as { id: string };

      const run = await runClaude({ cwd: repo, env, prompt: PROMPT, timeoutMs: 45_000 });

      expect(fake.scriptErrors).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.result).toMatchObject({
        is_error: false,
        result: 'All tests pass. <promise>DONE</promise>',
      });
      const requests = fake.messageRequests();
      expect(requests).toHaveLength(4);
      // The last request carries the whole conversation: three block reasons, each the prompt.
      expect(blockReasonsSeen(requests.at(-1)!, PROMPT)).toBe(3);
      expect(requests.map((request) => blockReasonsSeen(request, PROMPT))).toEqual([0, 1, 2, 3]);

      const session = fake.sessions()[0]!;
      const journal = readFileSync(join(repo, '.claude', `ralph-journal-${id}.md`), 'utf8');
      expect(journal).toContain(`Claimed by session ${session}. Continuing to iteration 2`);
      expect(journal).toMatch(/### Iteration 2 - .*\n\n\*\*Status:\*\* Continuing to iteration 3/);
      expect(journal).toMatch(/### Iteration 3 - .*\n\n\*\*Status:\*\* Continuing to iteration 4/);
      expect(journal).toMatch(
        /### Iteration 4 - .*\n\n\*\*Status:\*\* Loop ended: completion promise <promise>DONE<\/promise> found/,
      );
      expect(await loopFiles(repo)).toEqual([]);
      expect(existsSync(join(repo, '.claude', `ralph-loop-${id}.local.md`))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'two loops claimed by two concurrent sessions keep apart',
    async () => {
      box = makeSandbox('ralph-session-loops-');
      const { repo } = box;
      const bodies = { A: 'Loop A: build the parser.', B: 'Loop B: write the docs.' };
      // Session A pauses before its second answer, so that session B starts, claims and runs
      // its loop while A's loop is claimed and active.
      fake = await startFakeAnthropic(
        perSession((first) => {
          const name = first.prompt().includes('session A') ? 'A' : 'B';
          return scriptedSteps([
            `${name}: first pass`,
            { ...reply(`${name}: second pass`), delayMs: name === 'A' ? 4_000 : 0 },
            `${name}: finished <promise>DONE-${name}</promise>`,
          ]);
        }),
      );
      const env = claudeEnv({ baseUrl: fake.url, root: box.root });
      await ralph(['setup', '--stop-hook'], repo, env);
      const start = async (name: 'A' | 'B') => {
        const result = await ralph(
          [
            'loop',
            'start',
            bodies[name],
            '--completion-promise',
            `DONE-${name}`,
            '--max-iterations',
            '10',
            '--json',
          ],
          repo,
          env,
        );
        return (JSON.parse(result.stdout) as { id: string }).id;
      };

      const idA = await start('A');
      const runA = runClaude({ cwd: repo, env, prompt: 'session A', timeoutMs: 45_000 });
      await waitFor(() =>
        readFileSync(join(repo, '.claude', `ralph-loop-${idA}.local.md`), 'utf8').includes(
          'claimed_at',
        ),
      );
      const idB = await start('B');
      const runB = runClaude({ cwd: repo, env, prompt: 'session B', timeoutMs: 45_000 });
      const [a, b] = await Promise.all([runA, runB]);

      expect(fake.scriptErrors).toEqual([]);
      expect(a.result?.result).toBe('A: finished <promise>DONE-A</promise>');
      expect(b.result?.result).toBe('B: finished <promise>DONE-B</promise>');
      const bySession = (sessionId: string | undefined) =>
        fake!.messageRequests().filter((request) => request.sessionId === sessionId);
      const lastA = bySession(a.result?.session_id).at(-1)!;
      const lastB = bySession(b.result?.session_id).at(-1)!;
      expect([blockReasonsSeen(lastA, bodies.A), blockReasonsSeen(lastA, bodies.B)]).toEqual([
        2, 0,
      ]);
      expect([blockReasonsSeen(lastB, bodies.B), blockReasonsSeen(lastB, bodies.A)]).toEqual([
        2, 0,
      ]);
      const journal = (id: string) =>
        readFileSync(join(repo, '.claude', `ralph-journal-${id}.md`), 'utf8');
      expect(journal(idA)).toContain(`Claimed by session ${a.result?.session_id}`);
      expect(journal(idB)).toContain(`Claimed by session ${b.result?.session_id}`);
      expect(journal(idA)).toMatch(/Loop ended: completion promise <promise>DONE-A<\/promise>/);
      expect(journal(idB)).toMatch(/Loop ended: completion promise <promise>DONE-B<\/promise>/);
      expect(await loopFiles(repo)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'the plugin: a slash command runs the CLI and its hooks.json drives the loop',
    async () => {
      box = makeSandbox('ralph-session-plugin-');
      const { repo } = box;
      fake = await startFakeAnthropic(scriptedSteps(['Listed.', 'Done: <promise>DONE</promise>']));
      const env = claudeEnv({ baseUrl: fake.url, root: box.root });
      await ralph(['setup', '--plugin'], repo, env);
      const started = await ralph(
        ['loop', 'start', PROMPT, '--completion-promise', 'DONE', '--json'],
        repo,
        env,
      );
      const { id } = JSON.parse(started.stdout) as { id: string };

      const run = await runClaude({
        cwd: repo,
        env,
        prompt: '/ralph-loop:list',
        args: ['--plugin-dir', join(repo, '.claude', 'ralph-plugin')],
        timeoutMs: 45_000,
      });

      expect(fake.scriptErrors).toEqual([]);
      expect(run.code, run.stderr).toBe(0);
      const [first, last] = [fake.messageRequests()[0]!, fake.messageRequests().at(-1)!];
      // The command's !`ralph loop list` ran before the model was asked.
      expect(first.containsText(`${id}  UNCLAIMED`)).toBe(true);
      expect(blockReasonsSeen(last, PROMPT)).toBe(1);
      expect(await loopFiles(repo)).toEqual([]);
    },
    TIMEOUT,
  );
});

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (condition()) return;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
