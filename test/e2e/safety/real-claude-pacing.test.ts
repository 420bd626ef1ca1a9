import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import {
  apiError,
  bash,
  failFirst,
  reply,
  scriptedSteps,
  sessionSequence,
  usageHeaders,
} from '../fake-anthropic/script.js';
import { runRalph } from '../harness.js';
import {
  claudeBinary,
  claudeEnv,
  gatewayToken,
  makeSandbox,
  type Sandbox,
} from '../real-claude/env.js';

/**
 * Usage windows and pacing end to end through the REAL Claude Code CLI (pinned 2.1.330): the
 * fake Messages API answers with the `anthropic-ratelimit-unified-*` headers (the 5-hour window
 * 95 % used, resetting a few seconds later; the weekly one 40 %), from which the CLI prints
 * `rate_limit_event` lines. ralph keeps the windows, shows them in `ralph status`, and with
 * limits.pace 0.9 holds the second iteration back until the 5-hour window has reset. The second
 * claude process meets a 529 on each turn once, which it retries itself: its api_retry lines
 * reach ralph as agent_retry events.
 */

const LOOP = '.ralph/feature-pace';

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

describe('ralph run paces on the usage windows the real Claude Code CLI reports', () => {
  it('shows the windows in status and waits for the 5-hour reset before iteration 2', async () => {
    sandbox = makeSandbox('ralph-pace-e2e-');
    const { repo, root } = sandbox;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('checkout', '-q', '-b', 'feature/pace');
    const prdFile = join(repo, LOOP, 'prd.json');
    const flip = (index: number) =>
      `node -e 'const fs=require("fs");const f="${prdFile}";const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories[${index}].passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")'`;

    // Far enough ahead for ralph init and the first iteration on a busy machine.
    const fiveHourReset = Math.ceil(Date.now() / 1000) + 20;
    const weekReset = fiveHourReset + 3 * 86_400;
    const busy = usageHeaders({
      fiveHour: { utilization: 0.95, resetsAt: fiveHourReset, status: 'allowed_warning' },
      sevenDay: { utilization: 0.4, resetsAt: weekReset },
    });
    // After the reset: a fresh 5-hour window.
    const fresh = usageHeaders({
      fiveHour: { utilization: 0.05, resetsAt: fiveHourReset + 5 * 3600 },
      sevenDay: { utilization: 0.41, resetsAt: weekReset },
    });
    fake = await startFakeAnthropic(
      sessionSequence([
        scriptedSteps([
          { ...reply('Marking STORY-001 done.', bash(flip(0), 'Mark STORY-001')), headers: busy },
          {
            ...reply('STORY-001 is done. <promise>STORY_COMPLETE</promise>'),
            headers: busy,
          },
        ]),
        // Each turn of the second process is overloaded once: Claude Code retries (api_retry).
        failFirst(
          1,
          apiError(529, { message: 'Overloaded', retryAfter: 1 }),
          scriptedSteps([
            {
              ...reply('Marking STORY-002 done.', bash(flip(1), 'Mark STORY-002')),
              headers: fresh,
            },
            { ...reply('All done. <promise>COMPLETE</promise>'), headers: fresh },
          ]),
        ),
      ]),
    );
    const env: Record<string, string> = {
      ...claudeEnv({ baseUrl: fake.url, root, maxRetries: 1 }),
      ANTHROPIC_AUTH_TOKEN: gatewayToken(),
      RALPH_CLAUDE_BIN: claudeBinary(),
      RALPH_LIMITS_PACE: '0.9',
      RALPH_USAGE_LIMIT_MARGIN_SECONDS: '0',
    };
    delete env.ANTHROPIC_API_KEY;
    expect((await runRalph(['init'], repo, env)).code).toBe(0);
    const story = (n: number) => ({
      id: `STORY-00${n}`,
      title: `Story ${n}`,
      description: 'd',
      acceptanceCriteria: ['works'],
      priority: n,
      passes: false,
      notes: '',
    });
    await writeFile(
      prdFile,
      `${JSON.stringify({ description: 'pace', userStories: [story(1), story(2)] }, null, 2)}\n`,
    );
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

    // The CLI printed rate_limit_event lines from the headers; ralph read the windows from them.
    const log = await readFile(join(repo, LOOP, 'logs', 'iteration-1-attempt-1.jsonl'), 'utf8');
    expect(log).toContain('"type":"rate_limit_event"');
    const windows = events.find((event) => event.type === 'usage_windows');
    expect(windows).toMatchObject({
      pace: 0.9,
      windows: {
        five_hour: {
          utilization: 0.95,
          resetsAt: new Date(fiveHourReset * 1000).toISOString(),
        },
        seven_day: { utilization: 0.4 },
      },
    });

    // Pacing: a usage-limit wait before iteration 2, which started after the reset.
    const wait = events.find((event) => event.type === 'wait_started');
    expect(wait).toMatchObject({ reason: 'usage_limit', iteration: 2, attempt: 1 });
    expect(String(wait?.detail)).toContain('pacing: the 5-hour window is 95 % used');
    const second = events.filter((event) => event.type === 'iteration_started')[1];
    expect(Date.parse(String(second?.at))).toBeGreaterThanOrEqual(fiveHourReset * 1000);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', state: 'COMPLETE', exitCode: 0 });

    // The second process's retries reached ralph as agent_retry events, before its result.
    const retries = events.filter((event) => event.type === 'agent_retry');
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toMatchObject({ iteration: 2, retry: 1, maxRetries: 1, errorStatus: 529 });

    // `ralph status` shows the windows the second run reported.
    const status = await runRalph(['status'], repo, env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/Usage: +5-hour 5 % \(resets in [45]h\d\dm\); weekly 41 %/);
    expect(status.stdout).toContain('limits.pace 90 %');
  }, 90_000);
});
