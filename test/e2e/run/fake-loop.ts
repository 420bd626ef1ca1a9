import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, expect, onTestFinished } from 'vitest';
import {
  RALPH_BIN,
  runRalph,
  spawnForTest,
  tempRepo,
  testEnv,
  type RunResult,
} from '../harness.js';

/**
 * A loop directory in a temp git repo, driven by the built binary with the fake `claude`
 * (test/fixtures/bin) first on PATH. The fake replays per-call scripts from `scripts/`
 * (protocol at the top of test/fixtures/bin/fake-claude-script); these helpers write those
 * scripts and read back what ralph and the fake left behind.
 */

export const BRANCH = 'feature/fake-loop';
export const LOOP = '.ralph/feature-fake-loop';

export interface StoryInput {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  priority: number;
  passes: boolean;
  notes: string;
  model?: string;
  mcpServers?: string[];
}

export function story(n: number, extra: Partial<StoryInput> = {}): StoryInput {
  return {
    id: `STORY-00${n}`,
    title: `Story number ${n}`,
    description: `The ${n}th slice of the feature`,
    acceptanceCriteria: [`criterion ${n}.1 holds`, 'Unit tests pass'],
    priority: n,
    passes: false,
    notes: '',
    ...extra,
  };
}

/** prd.json (ralph-hybrid) as a person would write it: two-space JSON, trailing newline. */
export function prdText(stories: readonly StoryInput[]): string {
  const prd = {
    description: 'A feature built by the fake agent',
    createdAt: '2026-11-22T00:00:00Z',
    userStories: stories,
  };
  return `${JSON.stringify(prd, null, 2)}\n`;
}

/** The same stories with `ids` marked passing: what an agent that finished them writes back. */
export function passing(stories: readonly StoryInput[], ...ids: string[]): StoryInput[] {
  return stories.map((each) => (ids.includes(each.id) ? { ...each, passes: true } : each));
}

/** What one call of the fake agent does; every part is optional. */
export interface AgentCall {
  /** Shell run in the repo before the output is printed (FAKE_CLAUDE_CALL is the call number). */
  sh?: string;
  /** The task list text the agent leaves behind (written before `sh` runs). */
  taskList?: string;
  /** Output printed after `sh`. */
  jsonl?: string;
  exit?: number;
}

/** argv-N.json as the fake recorded it, plus `prompt`: what it got on stdin (prompt-N.txt). */
export interface FakeCall {
  call: number;
  pid: number;
  cwd: string;
  argv: string[];
  env: { CLAUDECODE: string | null; CLAUDE_CODE_ENTRYPOINT: string | null };
  prompt: string;
}

/** The fields of status.json these tests read. */
export interface StatusFile {
  state: string;
  status: string;
  pid: number;
  iteration: number;
  maxIterations: number;
  storiesPassing: number;
  storiesTotal: number;
  costUsd: number;
  sessionId?: string;
  lastResult?: string;
  exitReason?: string;
  currentStory?: { id: string; model?: string };
}

/** A LoopEvent as JSON: the common fields plus whatever its type carries. */
export type EventJson = { type: string; at: string } & Record<string, unknown>;

export interface FakeLoop {
  repo: string;
  home: string;
  /** The loop directory, absolute. */
  dir: string;
  prdFile: string;
  /** FAKE_CLAUDE_SCRIPT_DIR. */
  scripts: string;
  env: NodeJS.ProcessEnv;
  agent(call: number | 'default', behaviour: AgentCall): Promise<void>;
  run(args: string[], env?: NodeJS.ProcessEnv): Promise<RunResult>;
  start(args: string[], env?: NodeJS.ProcessEnv): RunningRalph;
  /** How many times the fake was called (0 when never). */
  calls(): Promise<number>;
  argv(call: number): Promise<FakeCall>;
  status(): Promise<StatusFile>;
  events(): Promise<EventJson[]>;
  prd(): Promise<string>;
  progress(): Promise<string>;
  log(iteration: number): Promise<string>;
}

/**
 * A loop directory as `ralph init` writes it, made once per test file and copied into each
 * test's repo: init itself is tested in init-validate-status.test.ts, and starting the binary
 * once more for each of these tests cost about half a second apiece.
 */
let scaffold: Promise<string> | undefined;
afterAll(async () => {
  const dir = await scaffold?.catch(() => undefined);
  if (dir !== undefined) await rm(join(dir, '../../..'), { recursive: true, force: true });
});

function initialised(): Promise<string> {
  scaffold ??= (async () => {
    const { repo, home } = await tempRepo(BRANCH);
    const init = await runRalph(['init'], repo, testEnv(home));
    if (init.code !== 0) throw new Error(`ralph init failed: ${init.stderr}`);
    return join(repo, LOOP);
  })();
  return scaffold;
}

/** `taskList`: the stories, or prd.json's exact text. */
export async function createFakeLoop(taskList: readonly StoryInput[] | string): Promise<FakeLoop> {
  const { repo, home } = await tempRepo(BRANCH);
  // A passing test's temp repo goes; a failing one's stays for a look (the path is in argv-N.json).
  onTestFinished(async ({ task }) => {
    if (task.result?.state === 'pass') await rm(join(repo, '..'), { recursive: true, force: true });
  });
  const scripts = join(repo, '..', 'fake-claude');
  await mkdir(scripts);
  const env = testEnv(home, { FAKE_CLAUDE_SCRIPT_DIR: scripts });
  const dir = join(repo, LOOP);
  await cp(await initialised(), dir, { recursive: true });
  const prdFile = join(dir, 'prd.json');
  // The template spec.md names the template's stories; without it preflight skips the sync check.
  await rm(join(dir, 'spec.md'));
  await writeFile(prdFile, typeof taskList === 'string' ? taskList : prdText(taskList));
  const read = (file: string) => readFile(file, 'utf8');

  return {
    repo,
    home,
    dir,
    prdFile,
    scripts,
    env,
    async agent(call, behaviour) {
      const lines: string[] = [];
      if (behaviour.taskList !== undefined) {
        const source = join(scripts, `task-list-${call}.json`);
        await writeFile(source, behaviour.taskList);
        lines.push(`cp '${source}' '${prdFile}'`);
      }
      if (behaviour.sh !== undefined) lines.push(behaviour.sh);
      if (lines.length > 0) await writeFile(join(scripts, `${call}.sh`), `${lines.join('\n')}\n`);
      if (behaviour.jsonl !== undefined)
        await writeFile(join(scripts, `${call}.jsonl`), behaviour.jsonl);
      if (behaviour.exit !== undefined)
        await writeFile(join(scripts, `${call}.exit`), `${behaviour.exit}\n`);
    },
    run: (args, extraEnv) => runRalph(args, repo, extraEnv ?? env),
    start: (args, extraEnv) => startRalph(args, repo, extraEnv ?? env),
    async calls() {
      const file = join(scripts, 'calls');
      return existsSync(file) ? Number((await read(file)).trim()) : 0;
    },
    argv: async (call) => ({
      ...(JSON.parse(await read(join(scripts, `argv-${call}.json`))) as Omit<FakeCall, 'prompt'>),
      prompt: await read(join(scripts, `prompt-${call}.txt`)),
    }),
    status: async () => JSON.parse(await read(join(dir, 'status.json'))) as StatusFile,
    events: async () =>
      (await read(join(dir, 'events.jsonl')))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as EventJson),
    prd: () => read(prdFile),
    progress: () => read(join(dir, 'progress.txt')),
    log: (iteration) => read(join(dir, 'logs', `iteration-${iteration}-attempt-1.jsonl`)),
  };
}

/**
 * What every loop test checks after its runs: the files tell one story. status.json agrees with
 * the last run_finished event and with prd.json's passes; progress.txt has a row for every
 * iteration_finished; the fake was called once per iteration_started, with that iteration's
 * story in its prompt; every iteration has its log.
 */
export async function expectFilesAgree(loop: FakeLoop): Promise<void> {
  const events = await loop.events();
  const finish = ofType(events, 'run_finished').at(-1);
  const status = await loop.status();
  expect(finish).toBeDefined();
  expect(status).toMatchObject({
    state: finish?.state,
    iteration: finish?.iterations,
    storiesPassing: finish?.storiesPassing,
    storiesTotal: finish?.storiesTotal,
  });
  expect(status.costUsd).toBeCloseTo(Number(finish?.costUsd), 9);
  const prd = JSON.parse(await loop.prd()) as { userStories: { passes: boolean }[] };
  expect(prd.userStories.filter((each) => each.passes)).toHaveLength(status.storiesPassing);

  const progress = await loop.progress();
  for (const each of ofType(events, 'iteration_finished')) {
    const { id } = each.story as { id: string };
    expect(progress).toContain(
      `| ${String(each.iteration)} | 1 | ${each.at} | ${id} | ${String(each.outcome)}`,
    );
  }
  const started = ofType(events, 'iteration_started');
  expect(await loop.calls()).toBe(started.length);
  for (const [index, each] of started.entries()) {
    const { id } = each.story as { id: string };
    expect((await loop.argv(index + 1)).prompt).toContain(`Work on **${id}:`);
    expect(existsSync(String(each.logFile))).toBe(true);
  }
}

export function ofType(events: readonly EventJson[], type: string): EventJson[] {
  return events.filter((event) => event.type === type);
}

/** A `ralph` started in the background, for the tests that signal it or race it. */
export interface RunningRalph {
  pid: number;
  stdout(): string;
  /** Resolves once it exits, with its exit code (128 + n when a signal n ended it). */
  exited: Promise<RunResult & { at: number }>;
}

export function startRalph(args: string[], cwd: string, env: NodeJS.ProcessEnv): RunningRalph {
  // Its own process group, killed when the test ends (harness.ts), whatever the test got to.
  const child = spawnForTest(process.execPath, [RALPH_BIN, ...args], { cwd, env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<RunResult & { at: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolve({ code: code ?? 128 + signalNumber(signal), stdout, stderr, at: Date.now() });
    });
  });
  if (child.pid === undefined) throw new Error('ralph did not start');
  return { pid: child.pid, stdout: () => stdout, exited };
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : signal === 'SIGKILL' ? 9 : 0;
}

/** Polls until `check` holds: for conditions in another process, which sends no event. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The processes still running in process group `pgid`. Read from /proc rather than with
 * kill(-pgid, 0): in this container PID 1 does not reap orphans, so killed processes linger as
 * zombies, which kill() still finds but which run nothing.
 */
export async function livingGroupMembers(pgid: number): Promise<number[]> {
  const living: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    // pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields !== undefined && Number(fields[2]) === pgid && fields[0] !== 'Z') {
      living.push(Number(name));
    }
  }
  return living;
}

/** Whether `pid` still runs (a zombie does not). */
export async function isRunning(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return (
    stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  );
}

/**
 * `ralph run` guards every agent with an HTTP PreToolUse hook passed as `--settings <json>`.
 * Checks that it is there and points at ralph's loopback service, and returns the argv without
 * it, so tests of the other flags stay readable.
 */
export function withoutGuardSettings(argv: readonly string[]): string[] {
  const index = argv.indexOf('--settings');
  if (index < 0) throw new Error(`no --settings (the guard hook) in ${JSON.stringify(argv)}`);
  const settings = JSON.parse(argv[index + 1] ?? '') as {
    hooks: { PreToolUse: { hooks: { type: string; url?: string }[] }[] };
  };
  const hooks = settings.hooks.PreToolUse.flatMap((group) => group.hooks);
  if (
    !hooks.some(
      (hook) => hook.type === 'http' && /^http:\/\/127\.0\.0\.1:\d+\//.test(hook.url ?? ''),
    )
  ) {
    throw new Error(`the guard's HTTP hook is missing from ${JSON.stringify(settings)}`);
  }
  return [...argv.slice(0, index), ...argv.slice(index + 2)];
}

/**
 * What a test started that may outlive it (a ralph, a hung agent's process group, a stray
 * program): SIGKILLed after each test, so a failure leaves nothing running into the next one.
 */
export function killAfterEach(): { started: { pid: number }[]; groups: number[] } {
  const started: { pid: number }[] = [];
  const groups: number[] = [];
  const kill = (pid: number): void => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  afterEach(() => {
    for (const each of started.splice(0)) kill(each.pid);
    for (const group of groups.splice(0)) kill(-group);
  });
  return { started, groups };
}

/**
 * The host's pid of a process the fake recorded from inside the OS sandbox's pid namespace (on
 * by default): the process whose NSpid ends with `inner` and whose environment carries
 * `marker` (this test's own script folder). Outside a namespace the pid is the host's already.
 */
export async function hostPidOf(inner: number, marker: string): Promise<number> {
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    const nspid = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number);
    if (nspid?.at(-1) !== inner) continue;
    const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
    if (environ.split('\0').includes(marker)) return Number(name);
  }
  return inner;
}

/** The process group of a running process (the sandbox's outer process, when sandboxed). */
export async function groupOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2] ?? pid);
}
