import { existsSync } from 'node:fs';
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';
import { safetyPrdText, stream, transcript } from './fake-agent-loop.js';

/**
 * The safety flags and their traces through the built binary (`node dist/cli/bin.js`) with the
 * fake `claude` on PATH: what a user sees — exit codes, status.json, `ralph status`, `ralph
 * inspect` — for a usage limit, a short real wait, and the circuit breaker.
 */

const LOOP = '.ralph/feature-safety-bin';

async function binaryLoop(storyIds: string[]) {
  const { repo, home } = await tempRepo('feature/safety-bin');
  onTestFinished(async ({ task }) => {
    if (task.result?.state === 'pass') await rm(join(repo, '..'), { recursive: true, force: true });
  });
  const scripts = join(repo, '..', 'fake-claude');
  await mkdir(scripts);
  const env = testEnv(home, { FAKE_CLAUDE_SCRIPT_DIR: scripts });
  const init = await runRalph(['init'], repo, env);
  if (init.code !== 0) throw new Error(`ralph init failed: ${init.stderr}`);
  const dir = join(repo, LOOP);
  await rm(join(dir, 'spec.md'));
  const prdFile = join(dir, 'prd.json');
  await writeFile(prdFile, safetyPrdText(storyIds));
  const pass = (id: string) =>
    `node -e 'const fs=require("fs");const f=process.argv[1];const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories.find(s=>s.id===process.argv[2]).passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")' '${prdFile}' '${id}'`;
  return {
    repo,
    dir,
    env,
    pass,
    agent: async (
      call: number | 'default',
      files: { sh?: string; jsonl?: string; exit?: number },
    ) => {
      if (files.sh !== undefined) await writeFile(join(scripts, `${call}.sh`), `${files.sh}\n`);
      if (files.jsonl !== undefined) await writeFile(join(scripts, `${call}.jsonl`), files.jsonl);
      if (files.exit !== undefined)
        await writeFile(join(scripts, `${call}.exit`), `${files.exit}\n`);
    },
    calls: async () => {
      const file = join(scripts, 'calls');
      return existsSync(file) ? Number((await readFile(file, 'utf8')).trim()) : 0;
    },
    run: (args: string[], extra: Record<string, string> = {}) =>
      runRalph(args, repo, { ...env, ...extra }),
    status: async () =>
      JSON.parse(await readFile(join(dir, 'status.json'), 'utf8')) as Record<string, unknown>,
    events: async () =>
      (await readFile(join(dir, 'events.jsonl'), 'utf8'))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    log: (iteration: number) =>
      readFile(join(dir, 'logs', `iteration-${iteration}-attempt-1.jsonl`), 'utf8'),
  };
}

function limitRun(session: string, resetsAtSeconds: number): string {
  const text = `You've hit your limit · resets soon`;
  return `${[
    stream.init(session),
    stream.rateLimit('rejected', resetsAtSeconds),
    stream.text(session, text),
    stream.result(session, text, { is_error: true, total_cost_usd: 0 }),
  ].join('\n')}\n`;
}

describe('ralph run: usage limits through the binary', () => {
  it('--on-usage-limit exit: PAUSED, exit 2; status and inspect explain it; a rerun before the reset exits again', async () => {
    const loop = await binaryLoop(['STORY-001']);
    const resetSeconds = Math.floor(Date.now() / 1000) + 2 * 3600;
    await loop.agent(1, { jsonl: limitRun('s-limit', resetSeconds), exit: 1 });

    const run = await loop.run(['run', '--pause', '0', '--on-usage-limit', 'exit']);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stdout).toContain('⚠ usage limit');
    expect(await loop.status()).toMatchObject({ state: 'PAUSED', stopReason: 'usage_limit' });

    const status = await loop.run(['status']);
    // Reset in 2 h plus the 60 s margin, rounded to the second and shown in whole minutes: 2h 01m
    // when status runs within half a second of the reset's whole second, 2h 00m or 1h 59m later.
    expect(status.stdout).toMatch(
      /Usage limit: +until \S+ \((2h 0[01]m|1h 59m)\): .*the next run waits/,
    );
    expect(status.stdout).toMatch(
      /Breaker: +CLOSED \(no progress 0\/3, same error 0\/5, denials 0\/2\)/,
    );

    const inspect = await loop.run([
      'inspect',
      join(LOOP, 'logs', 'iteration-1-attempt-1.jsonl'),
      '--json',
    ]);
    const report = JSON.parse(inspect.stdout) as { classification: Record<string, unknown> };
    expect(report.classification).toMatchObject({
      kind: 'usage_limit',
      resetAt: new Date(resetSeconds * 1000).toISOString(),
      basis: 'log and events.jsonl',
    });
    const text = await loop.run(['inspect', join(LOOP, 'logs', 'iteration-1-attempt-1.jsonl')]);
    expect(text.stdout).toMatch(
      /Classified: +usage limit \(resets .*\) — usage limit \(a rejected rate_limit_event/,
    );

    const again = await loop.run(['run', '--pause', '0', '--on-usage-limit', 'exit']);
    expect(again.code).toBe(2);
    expect(await loop.calls()).toBe(1);
  });

  it('inspect agrees with the loop on a usage limit printed only on stderr (the log lacks it)', async () => {
    const loop = await binaryLoop(['STORY-001']);
    const resetSeconds = Math.floor(Date.now() / 1000) + 3 * 3600;
    await loop.agent(1, {
      sh: `echo 'Claude AI usage limit reached|${resetSeconds}' >&2`,
      exit: 1,
    });
    const run = await loop.run(['run', '--pause', '0', '--on-usage-limit', 'exit']);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const inspect = await loop.run([
      'inspect',
      join(LOOP, 'logs', 'iteration-1-attempt-1.jsonl'),
      '--json',
    ]);
    const report = JSON.parse(inspect.stdout) as { classification: Record<string, unknown> };
    expect(report.classification).toMatchObject({
      kind: 'usage_limit',
      resetAt: new Date(resetSeconds * 1000).toISOString(),
      basis: 'log and events.jsonl',
    });
  });

  // Real clock, but no race: what is checked holds however late ralph classifies the limit.
  it('waits for a reset a few seconds away, on the real clock, and resumes the story after it', async () => {
    const loop = await binaryLoop(['STORY-001']);
    const resetMs = (Math.ceil(Date.now() / 1000) + 1) * 1000;
    await loop.agent(1, { jsonl: limitRun('s-limit', resetMs / 1000), exit: 1 });
    await loop.agent(2, {
      sh: loop.pass('STORY-001'),
      jsonl: transcript('s-2', 'Done. <promise>COMPLETE</promise>'),
    });
    const run = await loop.run(['run', '--pause', '0'], {
      RALPH_USAGE_LIMIT_MARGIN_SECONDS: '0.5',
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('▶ iteration 1 (attempt 2)');
    expect(run.stdout).not.toContain('backing off');
    const events = await loop.events();
    const retry = events.find((each) => each.type === 'iteration_started' && each.attempt === 2);
    // Not before the reset (the 0.5 s margin is left out: two clocks, a millisecond apart).
    expect(Date.parse(String(retry?.at))).toBeGreaterThanOrEqual(resetMs);
    expect(existsSync(join(loop.dir, 'logs', 'iteration-1-attempt-2.jsonl'))).toBe(true);
  });

  it('resumes at once when the reset has just passed (was: waited the 5-minute fallback)', async () => {
    const loop = await binaryLoop(['STORY-001']);
    await loop.agent(1, { jsonl: limitRun('s-limit', Math.floor(Date.now() / 1000) - 2), exit: 1 });
    await loop.agent(2, {
      sh: loop.pass('STORY-001'),
      jsonl: transcript('s-2', 'Done. <promise>COMPLETE</promise>'),
    });
    const run = await loop.run(['run', '--pause', '0'], {
      RALPH_USAGE_LIMIT_MARGIN_SECONDS: '0',
    });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /usage limit → trying again: usage limit \(a rejected rate_limit_event; resets /,
    );
    expect(run.stdout).toContain('▶ iteration 1 (attempt 2)');
    expect(run.stdout).not.toMatch(/⏸ waiting|backing off/);
    expect(await loop.status()).toMatchObject({ state: 'COMPLETE' });
  });
});

describe('ralph run: the circuit breaker through the binary', () => {
  it('opens (exit 1), refuses the next run, and --reset-breaker clears it', async () => {
    const loop = await binaryLoop(['STORY-001']);
    await loop.agent('default', { jsonl: transcript('s-idle', 'Nothing changed.') });
    const first = await loop.run(['run', '--pause', '0']);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain('⚡ circuit breaker CLOSED → OPEN: no progress in 3 iterations');
    expect(first.stdout).toContain('hint: Look at the last iterations');

    const refused = await loop.run(['run', '--pause', '0']);
    expect(refused.code).toBe(1);
    expect(await loop.calls()).toBe(3);
    const status = await loop.run(['status', '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      lastRun: { stopReason: 'breaker', breaker: { state: 'OPEN' } },
      safety: { breaker: { state: 'OPEN', noProgress: '3/3' } },
    });

    // The refused run ran no iteration and must not reset the count: the next run goes on at 4,
    // leaving iteration 1's log as the first run wrote it.
    expect(await loop.status()).toMatchObject({ iteration: 3 });
    const firstLog = await loop.log(1);
    await loop.agent(4, { sh: loop.pass('STORY-001'), jsonl: transcript('s-4', 'Done.') });
    const reset = await loop.run(['run', '--pause', '0', '--reset-breaker']);
    expect(reset.code, reset.stdout + reset.stderr).toBe(0);
    expect(reset.stdout).toContain('circuit breaker OPEN → CLOSED: reset by --reset-breaker');
    expect(reset.stdout).toContain('▶ iteration 4');
    expect(await loop.log(1)).toBe(firstLog);
    expect(await loop.status()).toMatchObject({ state: 'COMPLETE', iteration: 4 });
  });

  it('--max-cost ends the run cleanly with exit 1 (budget)', async () => {
    const loop = await binaryLoop(['STORY-001', 'STORY-002', 'STORY-003']);
    await loop.agent(1, { sh: loop.pass('STORY-001'), jsonl: transcript('s-1', 'Done.') });
    await loop.agent(2, { sh: loop.pass('STORY-002'), jsonl: transcript('s-2', 'Done.') });
    const run = await loop.run(['run', '--pause', '0', '--max-cost', '0.015']);
    expect(run.code).toBe(1);
    expect(await loop.calls()).toBe(2);
    expect(await loop.status()).toMatchObject({
      state: 'REACHED_LIMIT',
      stopReason: 'budget',
      costUsd: 0.02,
      stories: { 'STORY-001': { costUsd: 0.01 }, 'STORY-002': { costUsd: 0.01 } },
      tokens: { inputTokens: 200, outputTokens: 40 },
    });
    const status = await loop.run(['status']);
    expect(status.stdout).toMatch(/Cost: +\$0\.0200 this run/);
    expect(status.stdout).toContain('STORY-001 $0.0100 (1 run) 100 in/20 out tokens');
    expect(status.stdout).toMatch(
      /Last iteration: +2: progress, \$0\.0100, 100 in\/20 out tokens, /,
    );
  });
});
