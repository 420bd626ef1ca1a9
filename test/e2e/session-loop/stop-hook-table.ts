import { lstat, mkdir, mkdtemp, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { expect } from 'vitest';
import { stopHookMain } from '../../../src/cli/commands/stop-hook.js';
import {
  parseSessionLoopFile,
  serialiseSessionLoopFile,
  type SessionLoopState,
} from '../../../src/session-loop/state-file.js';

/**
 * The table behind the Stop hook tests (src/cli/commands/stop-hook*.test.ts): each case lays out
 * `.claude/` in a fresh project, feeds one hook input through the real entry point (the code
 * bin.ts runs, in-process), and checks stdout, stderr and the files afterwards.
 */
export const SESSION = 'sess-me';
export const OTHER = 'sess-other';
export const A = 'aaaa1111';
export const B = 'bbbb2222';
export const NASTY_BODY =
  'Fix the parser.\n---\nloop_id: "zzzz9999"\nsession_id: "evil"\niteration: 999\n---\n"quoted" \'single\' ünï 🚀\n';

interface Loop {
  id?: string;
  session?: string;
  iteration?: number;
  max?: number;
  promise?: string | null;
  body?: string;
  active?: boolean;
  startedAt?: string;
}

export function loopText(loop: Loop = {}): string {
  const state: SessionLoopState = {
    loop_id: loop.id ?? A,
    session_id: loop.session ?? '',
    active: loop.active ?? true,
    iteration: loop.iteration ?? 1,
    max_iterations: loop.max ?? 10,
    completion_promise: loop.promise === undefined ? 'DONE' : loop.promise,
    started_at: loop.startedAt ?? '2026-01-01T00:00:00.000Z',
  };
  return serialiseSessionLoopFile({ state, body: loop.body ?? 'Do the task.' });
}

export const stateName = (id: string) => `ralph-loop-${id}.local.md`;

type Expect = 'absent' | 'unchanged' | ((state: SessionLoopState, body: string) => void);

export interface Case {
  name: string;
  files?: Record<string, string>;
  symlinks?: Record<string, string>;
  noClaudeDir?: boolean;
  input?: Record<string, unknown>;
  rawStdin?: string;
  transcript?: string;
  config?: string;
  block?: string | false;
  silent?: boolean;
  stdout?: RegExp;
  stderr?: RegExp;
  after?: Record<string, Expect>;
  journal?: RegExp;
}

export const iterationIs =
  (iteration: number, session = SESSION): Expect =>
  (state) => {
    expect(state.iteration).toBe(iteration);
    expect(state.session_id).toBe(session);
  };

export const msg = (text: string) => ({ last_assistant_message: text });

export async function runCase(testCase: Case): Promise<void> {
  const { project, home } = await tempProject();
  const claude = join(project, '.claude');
  if (testCase.noClaudeDir !== true) await mkdir(claude);
  for (const [name, text] of Object.entries(testCase.files ?? {}))
    await writeFile(join(claude, name), text);
  for (const [name, target] of Object.entries(testCase.symlinks ?? {}))
    await symlink(target, join(claude, name));
  if (testCase.config !== undefined) {
    await mkdir(join(project, '.ralph'));
    await writeFile(join(project, '.ralph', 'config.yaml'), testCase.config);
  }
  const before = await snapshot(claude, Object.keys(testCase.after ?? {}));
  let transcriptPath: string | undefined;
  if (testCase.transcript !== undefined) {
    transcriptPath = join(home, 'transcript.jsonl');
    await writeFile(transcriptPath, `${testCase.transcript}\n`);
  }
  const input = {
    session_id: SESSION,
    cwd: project,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: testCase.transcript === undefined ? 'Working on it.' : undefined,
    ...(transcriptPath === undefined ? {} : { transcript_path: transcriptPath }),
    ...testCase.input,
  };
  const result = await runHook(testCase.rawStdin ?? JSON.stringify(input), project, home);

  expect(result.code).toBe(0);
  if (testCase.silent === true) {
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('');
  }
  const output =
    result.stdout === '' ? undefined : (JSON.parse(result.stdout) as Record<string, unknown>);
  if (typeof testCase.block === 'string') {
    expect(output?.decision).toBe('block');
    expect(output?.reason).toBe(testCase.block);
  } else if (testCase.block === false) {
    expect(output?.decision).toBeUndefined();
  }
  if (testCase.stdout !== undefined) expect(result.stdout).toMatch(testCase.stdout);
  if (testCase.stderr !== undefined) expect(result.stderr).toMatch(testCase.stderr);
  for (const [name, expectation] of Object.entries(testCase.after ?? {})) {
    const path = join(claude, name);
    if (expectation === 'absent') {
      await expect(lstat(path)).rejects.toThrow();
    } else if (expectation === 'unchanged') {
      expect(await snapshotOne(path)).toBe(before[name]);
    } else {
      const parsed = parseSessionLoopFile(await readFile(path, 'utf8'));
      if (!parsed.ok) throw new Error(parsed.reason);
      expectation(parsed.file.state, parsed.file.body);
    }
  }
  if (testCase.journal !== undefined) {
    expect(await readFile(join(claude, `ralph-journal-${A}.md`), 'utf8')).toMatch(testCase.journal);
  }
}

async function tempProject(): Promise<{ project: string; home: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-stop-hook-')));
  const project = join(root, 'project');
  const home = join(root, 'home');
  await mkdir(project);
  await mkdir(home);
  return { project, home };
}

async function runHook(
  stdin: string,
  cwd: string,
  home: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await stopHookMain([], {
    stdin: Readable.from([stdin]),
    stdout,
    stderr,
    env: { HOME: home },
    cwd,
  });
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

async function snapshot(dir: string, names: readonly string[]): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const name of names) result[name] = await snapshotOne(join(dir, name));
  return result;
}

async function snapshotOne(path: string): Promise<string> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return '(absent)';
  return `${stats.isSymbolicLink() ? 'symlink:' : ''}${await readFile(path, 'utf8')}`;
}
