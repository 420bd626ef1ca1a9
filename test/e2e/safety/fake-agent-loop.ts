import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { createClaudeAdapter } from '../../../src/agents/claude/adapter.js';
import { runLoop, type LoopDependencies, type LoopResult } from '../../../src/core/engine.js';
import type { LoopEvent } from '../../../src/core/events.js';
import type { Clock } from '../../../src/safety/clock.js';
import { DEFAULT_SAFETY, type SafetySettings } from '../../../src/safety/settings.js';
import { statusFileReporter } from '../../../src/monitor/reporters/status-file.js';
import { eventsFileReporter } from '../../../src/monitor/reporters/events-file.js';
import { FAKE_BIN_DIR, fakeClaudeSandboxEnv } from '../harness.js';

/**
 * The loop engine as a library (design.md §1), driven in process with an injected clock and the
 * REAL Claude Code adapter pointed at the fake `claude` (test/fixtures/bin; its per-call script
 * protocol is at the top of fake-claude-script). Agent processes, their process groups, timers
 * and logs are real; only the loop's own waits run on the fake clock.
 */

export interface AgentCall {
  /** Shell run in the repo before the output is printed; it may print, sleep and hang. */
  sh?: string;
  /** Printed after `sh`. */
  jsonl?: string;
  exit?: number;
}

export interface FakeClock extends Clock {
  sleeps: number[];
  advance(ms: number): void;
  /** Called inside each sleep, before time moves: a look at the files mid-wait. */
  onSleep?: (ms: number) => Promise<void>;
}

export function fakeClock(start: string): FakeClock {
  let now = Date.parse(start);
  const clock: FakeClock = {
    sleeps: [],
    now: () => new Date(now),
    async sleep(ms, signal) {
      clock.sleeps.push(ms);
      await clock.onSleep?.(ms);
      if (signal?.aborted !== true) now += ms;
    },
    advance(ms) {
      now += ms;
    },
  };
  return clock;
}

export interface SafetyLoop {
  repo: string;
  dir: string;
  scripts: string;
  prdFile: string;
  agent(call: number | 'default', behaviour: AgentCall): Promise<void>;
  /** A shell line that marks `id` passing in prd.json, as an agent would. */
  pass(id: string): string;
  run(
    clock: Clock,
    options?: {
      safety?: Partial<SafetySettings>;
      maxIterations?: number;
      timeoutMs?: number;
      resume?: { iteration: number; costUsd: number };
    },
    deps?: Partial<LoopDependencies>,
  ): Promise<{ result: LoopResult; events: LoopEvent[] }>;
  calls(): Promise<number>;
  pidOfCall(call: number): Promise<number>;
  status(): Promise<Record<string, unknown>>;
  log(iteration: number, attempt: number): Promise<string>;
}

/** A prd.json with one open story per id, in priority order. */
export function safetyPrdText(storyIds: readonly string[]): string {
  const prd = {
    description: 'safety',
    userStories: storyIds.map((id, index) => ({
      id,
      title: `Story ${index + 1}`,
      description: 'd',
      acceptanceCriteria: ['works'],
      priority: index + 1,
      passes: false,
      notes: '',
    })),
  };
  return `${JSON.stringify(prd, null, 2)}\n`;
}

export async function createSafetyLoop(storyIds: string[]): Promise<SafetyLoop> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-safety-e2e-')));
  onTestFinished(async ({ task }) => {
    if (task.result?.state === 'pass') await rm(root, { recursive: true, force: true });
  });
  const repo = join(root, 'repo');
  const dir = join(repo, '.ralph', 'feature-safety');
  const scripts = join(root, 'fake-claude');
  await mkdir(join(dir, 'logs'), { recursive: true });
  await mkdir(scripts);
  const prdFile = join(dir, 'prd.json');
  await writeFile(prdFile, safetyPrdText(storyIds));
  const env = {
    PATH: `${FAKE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    HOME: root,
    FAKE_CLAUDE_SCRIPT_DIR: scripts,
    ...fakeClaudeSandboxEnv(scripts),
  };
  const read = (file: string) => readFile(file, 'utf8');
  return {
    repo,
    dir,
    scripts,
    prdFile,
    async agent(call, behaviour) {
      if (behaviour.sh !== undefined)
        await writeFile(join(scripts, `${call}.sh`), `${behaviour.sh}\n`);
      if (behaviour.jsonl !== undefined)
        await writeFile(join(scripts, `${call}.jsonl`), behaviour.jsonl);
      if (behaviour.exit !== undefined)
        await writeFile(join(scripts, `${call}.exit`), `${behaviour.exit}\n`);
    },
    pass: (id) =>
      `node -e 'const fs=require("fs");const f=process.argv[1];const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories.find(s=>s.id===process.argv[2]).passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")' '${prdFile}' '${id}'`,
    async run(clock, options = {}, deps = {}) {
      const events: LoopEvent[] = [];
      const agent = createClaudeAdapter({ command: join(FAKE_BIN_DIR, 'claude'), env });
      const result = await runLoop(
        {
          loopDir: dir,
          cwd: repo,
          taskListFile: prdFile,
          promptTemplate: 'Work on the story.',
          feature: 'feature-safety',
          maxIterations: options.maxIterations ?? 10,
          timeoutMs: options.timeoutMs ?? 60_000,
          pauseMs: 0,
          models: { model: undefined, profile: undefined },
          permission: { kind: 'mode', mode: 'acceptEdits' },
          completionPatterns: [],
          env,
          hasSpec: false,
          hasSpecsDir: false,
          resume: options.resume,
          safety: { ...DEFAULT_SAFETY, ...options.safety },
        },
        {
          agent,
          clock,
          signal: new AbortController().signal,
          reporters: [
            eventsFileReporter(dir),
            statusFileReporter(dir, process.pid),
            { onEvent: (event) => void events.push(event) },
          ],
          random: () => 0.5,
          timeZone: 'UTC',
          ...deps,
        },
      );
      return { result, events };
    },
    async calls() {
      const file = join(scripts, 'calls');
      return existsSync(file) ? Number((await read(file)).trim()) : 0;
    },
    async pidOfCall(call) {
      return (JSON.parse(await read(join(scripts, `argv-${call}.json`))) as { pid: number }).pid;
    },
    status: async () => JSON.parse(await read(join(dir, 'status.json'))) as Record<string, unknown>,
    log: (iteration, attempt) =>
      read(join(dir, 'logs', `iteration-${iteration}-attempt-${attempt}.jsonl`)),
  };
}

/** Is `pid` a live process (zombies waiting for their reaper count as gone)? */
export async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return false;
  const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  return state !== 'Z' && state !== 'X';
}

/** Processes whose process group is `pgid` (still running). */
export async function groupMembers(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(name));
  }
  return members;
}

/** Stream-json lines as Claude Code prints them. */
export const stream = {
  init: (session: string) =>
    JSON.stringify({
      type: 'system',
      subtype: 'init',
      session_id: session,
      model: 'claude-sonnet-5-5',
      claude_code_version: '2.1.330',
    }),
  text: (session: string, text: string) =>
    JSON.stringify({
      type: 'assistant',
      message: { model: 'claude-sonnet-5-5', role: 'assistant', content: [{ type: 'text', text }] },
      parent_tool_use_id: null,
      session_id: session,
    }),
  result: (session: string, text: string, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      api_error_status: null,
      result: text,
      session_id: session,
      total_cost_usd: 0.01,
      num_turns: 2,
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        cache_read_input_tokens: 500,
        cache_creation_input_tokens: 0,
      },
      permission_denials: [],
      ...extra,
    }),
  rateLimit: (status: string, resetsAtSeconds: number, window = 'five_hour') =>
    JSON.stringify({
      type: 'rate_limit_event',
      rate_limit_info: {
        status,
        resetsAt: resetsAtSeconds,
        rateLimitType: window,
        overageStatus: 'rejected',
        isUsingOverage: false,
      },
      session_id: 's',
    }),
};

/** A whole run's output: init, the final text, the result. */
export function transcript(
  session: string,
  text: string,
  extra: Record<string, unknown> = {},
): string {
  return `${[stream.init(session), stream.text(session, text), stream.result(session, text, extra)].join('\n')}\n`;
}
