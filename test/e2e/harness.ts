import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';

/** Process-level tests run the built binary exactly as a user would: `node dist/cli/bin.cjs`. */
export const RALPH_BIN = resolve(import.meta.dirname, '../../dist/cli/bin.cjs');
export const FAKE_BIN_DIR = resolve(import.meta.dirname, '../fixtures/bin');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A clean environment: only what ralph needs, the fake `claude` first on PATH, a private HOME
 * (so the developer's ~/.config/ralph never leaks into a test) and no CLAUDECODE.
 */
export function testEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${FAKE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    HOME: home,
    NO_COLOR: '1',
    ...fakeClaudeSandboxEnv(extra.FAKE_CLAUDE_SCRIPT_DIR),
    ...extra,
  };
}

/**
 * The fake `claude` keeps its scripts and call records beside the repository: the OS sandbox (on
 * by default) must let it write there, as a user names a folder their agent needs.
 */
export function fakeClaudeSandboxEnv(scripts: string | undefined): Record<string, string> {
  return scripts === undefined ? {} : { RALPH_SANDBOX_WRITABLE: scripts };
}

/**
 * Processes started by this test file and not yet known to be over. A test that times out never
 * reaches its own clean-up, and the process it waited for would run on into the next tests: each
 * is killed when the test that started it ends, however it ends — its process group, and every
 * process below it (ralph starts each agent in a group of its own).
 */
const running = new Set<ChildProcess>();

async function killTree(child: ChildProcess): Promise<void> {
  running.delete(child);
  const pid = child.pid;
  if (pid === undefined) return;
  const alive = child.exitCode === null && child.signalCode === null;
  const below = alive ? await descendants(pid) : [];
  for (const target of [-pid, ...below]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Every process below `pid`, read from /proc (none where there is no /proc). */
async function descendants(pid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const name of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => undefined);
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ')'.
    const ppid = Number(stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length > 0;) {
    const next = children.get(queue.shift() ?? 0) ?? [];
    found.push(...next);
    queue = queue.concat(next);
  }
  return found;
}

// Started outside a test (beforeAll): killed when the file is done.
afterAll(async () => {
  await Promise.all([...running].map(killTree));
});

/**
 * `spawn` for tests: the child leads its own process group, and it and everything below it are
 * killed when the current test ends, passed, failed or timed out.
 */
export function spawnForTest(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid === undefined) return child; // failed to start: 'error' follows, nothing to kill
  running.add(child);
  try {
    onTestFinished(() => killTree(child));
  } catch {
    // Not inside a test: the afterAll above kills it.
  }
  return child;
}

/** Collects a child's output and resolves with its exit code (1 when a signal ended it). */
export function outcome(child: ChildProcess): Promise<RunResult> {
  return new Promise((done, fail) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code) => {
      done({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** `ralph ARGS` in `cwd`, to its end; killed with its process group if the test ends first. */
export function runRalph(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunResult> {
  return outcome(spawnForTest(process.execPath, [RALPH_BIN, ...args], { cwd, env }));
}

/** A temp folder holding a git repository (on `branch`) and a separate HOME. */
export async function tempRepo(
  branch = 'feature/csv-export',
): Promise<{ repo: string; home: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-e2e-')));
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  execFileSync('git', ['init', '-q', '-b', branch, repo]);
  execFileSync('mkdir', ['-p', home]);
  return { repo, home };
}

/** What a person does after `ralph init`: the example stories replaced, in spec.md and prd.json alike. */
export async function planStories(dir: string): Promise<void> {
  const ours: [string, string][] = [
    ['Replace this second example story', 'Export the filtered rows'],
    ['Replace this example story', 'Export all rows as CSV'],
    ['Describe one observable behaviour per criterion', 'The download holds one line per row'],
    ['Describe one observable behaviour', 'Only the rows shown are exported'],
    ['the first small, testable slice of the feature so that I get value early', 'a CSV file'],
    ['the next slice, built on the first', 'only the rows I filtered'],
  ];
  for (const file of ['prd.json', 'spec.md']) {
    let text = await readFile(join(dir, file), 'utf8');
    for (const [from, to] of ours) text = text.replaceAll(from, to);
    await writeFile(join(dir, file), text);
  }
}
