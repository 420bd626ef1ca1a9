import { lstat, mkdir, mkdtemp, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseLoopFile, serialiseLoopFile, type LoopState } from '../../session-loop/state-file.js';
import { stopHookMain } from './stop-hook.js';

/**
 * The Stop hook, table-driven: each case lays out `.claude/` in a fresh project, feeds one hook
 * input through the real entry point (the same code bin.ts runs), and checks stdout, stderr and
 * the files afterwards.
 */

const SESSION = 'sess-me';
const OTHER = 'sess-other';
const A = 'aaaa1111';
const B = 'bbbb2222';
const NASTY_BODY =
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

function loopText(loop: Loop = {}): string {
  const state: LoopState = {
    loop_id: loop.id ?? A,
    session_id: loop.session ?? '',
    active: loop.active ?? true,
    iteration: loop.iteration ?? 1,
    max_iterations: loop.max ?? 10,
    completion_promise: loop.promise === undefined ? 'DONE' : loop.promise,
    started_at: loop.startedAt ?? '2026-01-01T00:00:00.000Z',
  };
  return serialiseLoopFile({ state, body: loop.body ?? 'Do the task.' });
}

const stateName = (id: string) => `ralph-loop-${id}.local.md`;

type Expect = 'absent' | 'unchanged' | ((state: LoopState, body: string) => void);

interface Case {
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

const iterationIs =
  (iteration: number, session = SESSION): Expect =>
  (state) => {
    expect(state.iteration).toBe(iteration);
    expect(state.session_id).toBe(session);
  };

const msg = (text: string) => ({ last_assistant_message: text });

const CASES: Case[] = [
  { name: 'no .claude folder: silent', noClaudeDir: true, silent: true },
  { name: 'no state file: silent', files: { 'settings.json': '{}' }, silent: true },
  {
    name: 'claims an unclaimed loop and blocks with its prompt',
    files: { [stateName(A)]: loopText() },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(2) },
    journal:
      /Iteration 1 .*\n\n\*\*Status:\*\* Claimed by session sess-me\. Continuing to iteration 2/,
  },
  {
    name: "leaves another session's loop alone",
    files: { [stateName(A)]: loopText({ session: OTHER, iteration: 3 }) },
    silent: true,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'continues its own loop',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 4 }) },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(5) },
    stdout: /iteration 5 of 10.*<promise>DONE<\/promise> only when it is true/,
  },
  {
    name: 'handles its own loop, not an unclaimed one',
    files: {
      [stateName(A)]: loopText({ session: SESSION, iteration: 2, body: 'mine' }),
      [stateName(B)]: loopText({ id: B, startedAt: '2025-01-01T00:00:00.000Z', body: 'theirs' }),
    },
    block: 'mine',
    after: { [stateName(A)]: iterationIs(3), [stateName(B)]: 'unchanged' },
  },
  {
    name: 'claims only the oldest of two unclaimed loops',
    files: {
      [stateName(A)]: loopText({ startedAt: '2026-02-01T00:00:00.000Z', body: 'newer' }),
      [stateName(B)]: loopText({ id: B, startedAt: '2026-01-01T00:00:00.000Z', body: 'older' }),
    },
    block: 'older',
    after: { [stateName(A)]: 'unchanged', [stateName(B)]: iterationIs(2) },
  },
  {
    name: "own loop beside another session's: only its own moves",
    files: {
      [stateName(A)]: loopText({ session: SESSION }),
      [stateName(B)]: loopText({ id: B, session: OTHER, iteration: 7 }),
    },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(2), [stateName(B)]: 'unchanged' },
  },
  {
    name: 'promise, exact: ends the loop',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 3 }) },
    input: msg('All green. <promise>DONE</promise>'),
    block: false,
    stdout: /"systemMessage":"ralph loop aaaa1111 ended at iteration 3: completion promise/,
    after: { [stateName(A)]: 'absent' },
    journal: /Loop ended: completion promise <promise>DONE<\/promise> found/,
  },
  {
    name: 'promise with surrounding and inner whitespace: ends',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: 'ALL TESTS PASS' }) },
    input: msg('<promise>\n  ALL   TESTS\tPASS \n</promise>'),
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'promise text without tags: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('DONE'),
    block: 'Do the task.',
  },
  {
    name: 'promise word in prose: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('I am not DONE yet, I will say promise DONE later.'),
    block: 'Do the task.',
  },
  {
    name: 'wrong tag: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('<result>DONE</result> <Promise>DONE</Promise> <promise>DONE</promis>'),
    block: 'Do the task.',
  },
  {
    name: 'different promise text: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('<promise>DONE!</promise> <promise>done</promise> <promise>NOT DONE</promise>'),
    block: 'Do the task.',
  },
  {
    name: 'glob promise "*" is literal: another text does not match',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: '*' }) },
    input: msg('<promise>anything</promise>'),
    block: 'Do the task.',
  },
  {
    name: 'glob promise "*" is literal: the star itself matches',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: '*' }) },
    input: msg('<promise>*</promise>'),
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'regex and quote characters are literal',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: 'say "a.c" [ok]?' }) },
    input: msg('<promise>say "abc" [ok]?</promise> <promise>say "a.c" o?</promise>'),
    block: 'Do the task.',
  },
  {
    name: 'promise with quotes matches itself',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: 'say "a.c" [ok]?' }) },
    input: msg('done: <promise>say "a.c" [ok]?</promise>'),
    block: false,
  },
  {
    name: 'a prompt with --- and front-matter look-alikes is fed back exactly',
    files: { [stateName(A)]: loopText({ session: SESSION, body: NASTY_BODY }) },
    block: NASTY_BODY,
    after: {
      [stateName(A)]: (state, body) => {
        expect(state.loop_id).toBe(A);
        expect(state.iteration).toBe(2);
        expect(body).toBe(NASTY_BODY);
      },
    },
  },
  {
    name: 'max iterations reached: ends',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 10, max: 10 }) },
    block: false,
    stdout: /reached max_iterations \(10\)/,
    after: { [stateName(A)]: 'absent' },
    journal: /Iteration 10 .*\n\n\*\*Status:\*\* Loop ended: reached max_iterations/,
  },
  {
    name: 'one below max iterations: continues to the last',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 9, max: 10 }) },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(10) },
  },
  {
    name: 'max 0 (unlimited) still stops at the default backstop of 500',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 500, max: 0 }) },
    block: false,
    stdout: /backstop of 500 iterations/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'max 0 below the backstop: continues',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 499, max: 0 }) },
    block: 'Do the task.',
    stdout: /iteration 500 of 500 \(backstop\)/,
  },
  {
    name: 'a configured backstop beats a larger max_iterations',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 3, max: 50 }) },
    config: 'loop:\n  backstopIterations: 3\n',
    block: false,
    stdout: /backstop of 3 iterations/,
  },
  {
    name: 'corrupt: no front matter: removed, stop allowed, said on stderr',
    files: { [stateName(A)]: 'just some text\n' },
    block: false,
    stderr: /ralph-loop-aaaa1111\.local\.md is corrupt \(no front matter.*removed/,
    stdout: /systemMessage/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'corrupt: non-numeric iteration',
    files: {
      [stateName(A)]: loopText({ session: SESSION }).replace('iteration: 1', 'iteration: one'),
    },
    block: false,
    stderr: /corrupt \(front matter field iteration/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'corrupt: non-numeric max_iterations',
    files: {
      [stateName(A)]: loopText({ session: SESSION }).replace(
        'max_iterations: 10',
        'max_iterations: lots',
      ),
    },
    block: false,
    stderr: /max_iterations/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'corrupt file beside a valid own loop: removed, the valid loop still runs',
    files: {
      [stateName(A)]: loopText({ session: SESSION }),
      [stateName(B)]: '---\nbroken: [\n',
    },
    block: 'Do the task.',
    stderr: /ralph-loop-bbbb2222\.local\.md is corrupt/,
    after: { [stateName(A)]: iterationIs(2), [stateName(B)]: 'absent' },
  },
  {
    name: 'corrupt: loop_id does not match the file name',
    files: { [stateName(A)]: loopText({ id: B }) },
    block: false,
    stderr: /does not match the file name/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'symlinked state file: refused, not followed, left alone',
    symlinks: { [stateName(A)]: 'target.md' },
    files: { 'target.md': loopText() },
    block: false,
    stderr: /symbolic link; refused/,
    after: { [stateName(A)]: 'unchanged', 'target.md': 'unchanged' },
  },
  {
    name: 'transcript not yet flushed: last_assistant_message is enough',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: { ...msg('<promise>DONE</promise>'), transcript_path: '/nonexistent/t.jsonl' },
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'no last_assistant_message: the transcript is read',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    transcript: [
      { type: 'user', message: { role: 'user', content: 'go' } },
      { type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: 'Finished.' }] } },
      {
        type: 'assistant',
        message: { id: 'm1', content: [{ type: 'text', text: '<promise>DONE</promise>' }] },
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'no last_assistant_message and an old promise in the transcript: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    transcript: [
      {
        type: 'assistant',
        message: { id: 'm1', content: [{ type: 'text', text: '<promise>DONE</promise>' }] },
      },
      { type: 'user', message: { role: 'user', content: 'not yet' } },
      {
        type: 'assistant',
        message: { id: 'm2', content: [{ type: 'text', text: 'still working' }] },
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
    block: 'Do the task.',
  },
  {
    name: 'no message and no transcript: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: { last_assistant_message: undefined },
    block: 'Do the task.',
  },
  {
    name: 'stop_hook_active: true still continues (the limits bound the loop)',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 2 }) },
    input: { stop_hook_active: true },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(3) },
  },
  {
    name: 'inactive loop: ignored',
    files: { [stateName(A)]: loopText({ active: false }) },
    silent: true,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'no completion promise: continues until the limit',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: null, max: 3 }) },
    input: msg('<promise>DONE</promise>'),
    block: 'Do the task.',
    stdout: /no completion promise: the loop ends after iteration 3/,
  },
  {
    name: 'stdin is not JSON: stop allowed',
    files: { [stateName(A)]: loopText() },
    rawStdin: 'not json{',
    block: false,
    stderr: /not JSON/,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'hook input without session_id: stop allowed, nothing touched',
    files: { [stateName(A)]: loopText() },
    input: { session_id: undefined },
    block: false,
    stderr: /session_id/,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'extra and unknown input fields are fine',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: { effort: { level: 'high' }, background_tasks: [], session_crons: [], future: 1 },
    block: 'Do the task.',
  },
];

describe('ralph stop-hook (table)', () => {
  for (const testCase of CASES) {
    it(testCase.name, async () => {
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
          const parsed = parseLoopFile(await readFile(path, 'utf8'));
          if (!parsed.ok) throw new Error(parsed.reason);
          expectation(parsed.file.state, parsed.file.body);
        }
      }
      if (testCase.journal !== undefined) {
        expect(await readFile(join(claude, `ralph-journal-${A}.md`), 'utf8')).toMatch(
          testCase.journal,
        );
      }
    });
  }

  it('has at least 25 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
  });
});

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
