import { describe, expect, it } from 'vitest';
import { runRalph } from '../harness.js';
import { initLine, jsonl, resultLine, textLine } from '../run/agent-stream.js';
import { createFakeLoop, ofType, passing, prdText, story, waitFor } from '../run/fake-loop.js';

/**
 * `ralph run` (the built binary) with the fake `claude` on PATH printing Claude Code's
 * `system/api_retry` and `rate_limit_event` lines: the retry is shown while the agent still runs
 * (terminal and status.json), the usage windows reach status.json, events.jsonl, safety.json and
 * `ralph status`, and limits.pace holds the next iteration back until the 5-hour window resets.
 */

const apiRetry = (session: string) =>
  JSON.stringify({
    type: 'system',
    subtype: 'api_retry',
    attempt: 1,
    max_retries: 10,
    retry_delay_ms: 543.11,
    error_status: 529,
    error: 'overloaded',
    session_id: session,
    uuid: 'u-retry',
  });

function rateLimitEvent(session: string, fiveHourReset: number, weekReset: number): string {
  return JSON.stringify({
    type: 'rate_limit_event',
    rate_limit_info: {
      status: 'allowed_warning',
      resetsAt: fiveHourReset,
      rateLimitType: 'five_hour',
      utilization: 0.95,
      overageStatus: 'rejected',
      overageDisabledReason: 'org_level_disabled',
      isUsingOverage: false,
      unifiedWindows: {
        five_hour: { utilization: 0.95, resetsAt: fiveHourReset },
        seven_day: { utilization: 0.3, resetsAt: weekReset },
      },
    },
    uuid: 'u-limit',
    session_id: session,
  });
}

describe('usage windows, pacing and api_retry with the fake claude', () => {
  it('shows the retry at once, keeps the windows, and paces the next iteration to the reset', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    // Epoch seconds, as Claude Code writes them: the 5-hour window resets a few seconds from now.
    const fiveHourReset = Math.ceil(Date.now() / 1000) + 10;
    const weekReset = fiveHourReset + 3 * 86_400;
    await loop.agent(1, {
      // The retry line first, then a pause: ralph must show it while the agent still runs.
      sh: `printf '%s\\n' '${initLine('s-1')}' '${apiRetry('s-1')}'; sleep 2`,
      taskList: prdText(passing(stories, 'STORY-001')),
      jsonl: jsonl(
        rateLimitEvent('s-1', fiveHourReset, weekReset),
        textLine('s-1', 'STORY-001 done. <promise>STORY_COMPLETE</promise>'),
        resultLine('s-1', 'STORY-001 done. <promise>STORY_COMPLETE</promise>'),
      ),
    });
    await loop.agent(2, {
      taskList: prdText(passing(stories, 'STORY-001', 'STORY-002')),
      jsonl: jsonl(
        initLine('s-2'),
        textLine('s-2', 'All done. <promise>COMPLETE</promise>'),
        resultLine('s-2', 'All done. <promise>COMPLETE</promise>'),
      ),
    });
    const env = {
      ...loop.env,
      RALPH_LIMITS_PACE: '0.9',
      RALPH_USAGE_LIMIT_MARGIN_SECONDS: '0',
    };
    const running = loop.start(['run', '--pause', '0'], env);
    await waitFor('the retry on the terminal', () =>
      running.stdout().includes('↻ Claude Code is retrying (attempt 1 of 10, 529 overloaded'),
    );
    // Within seconds, while the first agent still sleeps: status.json says so too.
    expect(await loop.calls()).toBe(1);
    await waitFor('the retry in status.json', async () => {
      const status = await loop.status().catch(() => undefined);
      return status !== undefined && 'retrying' in status;
    });
    expect(await loop.status()).toMatchObject({
      retrying: { retry: 1, maxRetries: 10, errorStatus: 529, error: 'overloaded' },
    });

    const done = await running.exited;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('usage: 5-hour 95 %, allowed_warning, pacing');
    expect(done.stdout).toMatch(/⏸ waiting \d+s .*pacing: the 5-hour window is 95 % used/);

    const events = await loop.events();
    expect(ofType(events, 'agent_retry')[0]).toMatchObject({ iteration: 1, retry: 1 });
    expect(ofType(events, 'usage_windows')[0]).toMatchObject({
      pace: 0.9,
      windows: {
        five_hour: { utilization: 0.95, resetsAt: new Date(fiveHourReset * 1000).toISOString() },
        seven_day: { utilization: 0.3 },
      },
    });
    const wait = ofType(events, 'wait_started')[0];
    expect(wait).toMatchObject({ reason: 'usage_limit', iteration: 2 });
    // The second agent started only after the 5-hour window had reset.
    const second = ofType(events, 'iteration_started')[1];
    expect(Date.parse(String(second?.at))).toBeGreaterThanOrEqual(fiveHourReset * 1000);

    // The window that has not reset is still shown afterwards, from status.json and safety.json.
    const status = await loop.status();
    expect(status).not.toHaveProperty('retrying');
    expect(status).toMatchObject({ usageWindows: { seven_day: { utilization: 0.3 } } });
    const shown = await runRalph(['status'], loop.repo, loop.env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/Usage: +weekly 30 % \(resets in \d+h\d\dm\)/);
    expect(shown.stdout).not.toContain('5-hour');
  }, 30_000);
});
