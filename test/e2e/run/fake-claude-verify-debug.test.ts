import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun, initLine } from './agent-stream.js';
import {
  createFakeLoop,
  isRunning,
  killAfterEach,
  livingGroupMembers,
  LOOP,
  story,
  waitFor,
  type FakeLoop,
} from './fake-loop.js';

/**
 * `ralph verify` and `ralph debug` as a person runs them: the built binary, the fake `claude`
 * on PATH writing the report or the debug state the way the prompt asks, and the exit codes of
 * the Ralph Hybrid spec for every verdict and return state.
 */

const REPORT = `${LOOP}/VERIFICATION.md`;
const STATE = `${LOOP}/debug-state.md`;

/** main at a first commit, the feature branch one commit further with src/widget.js. */
async function feature(widget = 'export function save(w) {\n  return w;\n}\n'): Promise<FakeLoop> {
  const loop = await createFakeLoop([story(1, { passes: true })]);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
      cwd: loop.repo,
    });
  git('commit', '-qm', 'base', '--allow-empty');
  git('branch', 'main');
  await writeFile(join(loop.repo, 'widget.js'), widget);
  git('add', 'widget.js');
  git('commit', '-qm', 'widget');
  await writeFile(join(loop.dir, 'spec.md'), '# Widget\n\n- A widget can be saved.\n');
  return loop;
}

/** A fake agent call that writes the verification report with this verdict block. */
function writesReport(verdict: string): string {
  return [
    `cat > '${REPORT}' <<'REPORT'`,
    '# Verification',
    '',
    '| goal | status | evidence |',
    '| --- | --- | --- |',
    '| a widget can be saved | achieved | widget.js save() |',
    '',
    '```ralph-verdict',
    verdict,
    '```',
    'REPORT',
  ].join('\n');
}

describe('ralph verify', () => {
  it.each([
    ['VERIFIED', 0],
    ['NEEDS_WORK', 1],
    ['BLOCKED', 2],
  ] as const)(
    "the agent's %s exits %i, with the report and ralph's check in VERIFICATION.md",
    async (status, code) => {
      const loop = await feature();
      await loop.agent(1, {
        sh: writesReport(
          JSON.stringify({ status, summary: `said ${status}`, humanTesting: ['look at it'] }),
        ),
        jsonl: finishedRun('verify-1', 'Report written.'),
      });
      const result = await loop.run(['verify', '--profile', 'quality', '-v']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(code);
      expect(result.stdout).toContain(`Verification: ${status} — said ${status}`);
      expect(result.stdout).toContain('    - look at it');
      // -v: the agent's tool calls and messages as they happen.
      expect(result.stdout).toContain('  · Bash npm test');
      expect(result.stdout).toContain('  “Report written.”');
      expect(result.stdout).toContain(`Report: ${REPORT}`);
      const report = await readFile(join(loop.repo, REPORT), 'utf8');
      expect(report).toContain('| a widget can be saved | achieved |');
      expect(report).toContain(`**Status: ${status}**`);
      expect(report).toContain('Compared with: main (merge base');
      const call = await loop.argv(1);
      expect(call.cwd).toBe(loop.repo);
      expect(call.argv).toEqual(
        expect.arrayContaining(['--model', 'opus', '--output-format', 'stream-json']),
      );
      expect(call.prompt).toContain('Goal-backward verification');
      expect(call.prompt).toContain(`- write the report to: ${REPORT}`);
      expect(existsSync(join(loop.dir, 'logs', 'verify.jsonl'))).toBe(true);
    },
  );

  it('VERIFIED over a TODO the branch added is NEEDS_WORK (exit 1); -m and -o are honoured', async () => {
    const loop = await feature('export function save(w) {\n  // TODO: persist it\n}\n');
    await loop.agent(1, {
      sh: writesReport('{"status":"VERIFIED","summary":"all done"}').replace(REPORT, 'out/v.md'),
      jsonl: finishedRun('verify-2', 'Report written.'),
    });
    const result = await loop.run(['verify', LOOP, '-m', 'haiku', '-o', 'out/v.md']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Verification: NEEDS_WORK');
    expect(result.stdout).toContain('widget.js:2 todo: // TODO: persist it');
    expect(result.stderr).toContain(
      "ralph: the agent said VERIFIED, but ralph's scan found 1 possible stub(s)",
    );
    expect((await loop.argv(1)).argv).toEqual(expect.arrayContaining(['--model', 'haiku']));
    const report = await readFile(join(loop.repo, 'out/v.md'), 'utf8');
    expect(report).toContain('| `widget.js` | 2 | TODO marker | `// TODO: persist it` |');
    expect(existsSync(join(loop.repo, REPORT))).toBe(false);
  });

  it('no report, or a report without a valid verdict, is BLOCKED (exit 2) and says why', async () => {
    const loop = await feature();
    await loop.agent(1, { jsonl: finishedRun('verify-3', 'I looked around.') });
    await loop.agent(2, {
      sh: writesReport('Status: VERIFIED'),
      jsonl: finishedRun('verify-4', 'Report written.'),
    });
    const none = await loop.run(['verify']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('ralph: no verdict: the agent wrote no report');
    expect(await readFile(join(loop.repo, REPORT), 'utf8')).toContain('**Status: BLOCKED**');
    const garbled = await loop.run(['verify']);
    expect(garbled.code).toBe(2);
    expect(garbled.stderr).toContain('ralph: no verdict: the ```ralph-verdict block is not JSON');
  });
});

/** A fake agent call that records evidence and sets the debug status block. */
function investigates(status: string): string {
  return [
    `sed -i 's/^## Evidence$/## Evidence\\n\\n- H1 session '"$FAKE_CLAUDE_CALL"': RULED_OUT/' '${STATE}'`,
    `sed -i 's/^{"state":"IN_PROGRESS"}$/${status.replaceAll('/', '\\/')}/' '${STATE}'`,
  ].join('\n');
}

// A failed test must not leave a ralph or a hanging agent running into the next one.
const { started, groups } = killAfterEach();

describe('ralph debug', () => {
  it('Ctrl+C ends the session (exit 130, agent tree gone, lock released); --continue goes on from it', async () => {
    const loop = await feature();
    await loop.agent(1, {
      sh: [
        'sleep 20 &',
        'echo "$PPID $!" > "$FAKE_CLAUDE_SCRIPT_DIR/hang.tmp" && mv "$FAKE_CLAUDE_SCRIPT_DIR/hang.tmp" "$FAKE_CLAUDE_SCRIPT_DIR/hang.pids"',
        `printf '%s\\n' '${initLine('debug-hang')}'`,
        'sleep 20',
      ].join('\n'),
    });
    await loop.agent(2, {
      sh: investigates('{"state":"DEBUG_COMPLETE","summary":"fixed"}'),
      jsonl: finishedRun('debug-5', 'Fixed.'),
    });
    const running = loop.start(['debug', 'the widget hangs']);
    started.push(running);
    const pids = join(loop.scripts, 'hang.pids');
    await waitFor('the agent to hang', () => existsSync(pids));
    const [agent, grandchild] = (await readFile(pids, 'utf8')).trim().split(' ').map(Number);
    groups.push(agent!);
    process.kill(running.pid, 'SIGINT');
    const stopped = await running.exited;
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(130);
    expect(await livingGroupMembers(agent!)).toEqual([]);
    expect(await isRunning(grandchild!)).toBe(false);
    const state = await readFile(join(loop.repo, STATE), 'utf8');
    expect(state).toMatch(/- session 1, started .* → interrupted/);
    expect(existsSync(join(loop.dir, '.ralph.lock'))).toBe(false);
    const again = await loop.run(['debug', '--continue']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Debug session 2: DEBUG_COMPLETE');
  });

  it('CHECKPOINT_REACHED exits 10; --continue runs session 2 on the same state, ROOT_CAUSE_FOUND exits 0', async () => {
    const loop = await feature();
    await loop.agent(1, {
      sh: investigates('{"state":"CHECKPOINT_REACHED","summary":"need the CI logs"}'),
      jsonl: finishedRun('debug-1', 'Checkpoint saved.'),
    });
    await loop.agent(2, {
      sh: investigates(
        '{"state":"ROOT_CAUSE_FOUND","summary":"found it","rootCause":"save() drops w on null"}',
      ),
      jsonl: finishedRun('debug-2', 'Root cause found.'),
    });
    const first = await loop.run(['debug', 'tests fail after the refactor', '--profile', 'budget']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(10);
    expect(first.stdout).toContain('Debug session 1: CHECKPOINT_REACHED — need the CI logs');
    expect(first.stdout).toContain('ralph debug --continue');
    expect((await loop.argv(1)).argv).toEqual(expect.arrayContaining(['--model', 'haiku']));
    const second = await loop.run(['debug', LOOP, '--continue']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Debug session 2: ROOT_CAUSE_FOUND — found it');
    expect(second.stdout).toContain('root cause: save() drops w on null');
    expect((await loop.argv(2)).prompt).toContain('Session 2. The debug state:');
    const state = await readFile(join(loop.repo, STATE), 'utf8');
    expect(state).toContain('## Problem\n\ntests fail after the refactor');
    expect(state).toContain('- H1 session 1: RULED_OUT');
    expect(state).toContain('- H1 session 2: RULED_OUT');
    expect(state).toMatch(/- session 1, started .*, model haiku → CHECKPOINT_REACHED/);
    expect(state).toMatch(/- session 2, started .* → ROOT_CAUSE_FOUND/);
    for (const n of [1, 2])
      expect(existsSync(join(loop.dir, 'logs', `debug-session-${n}.jsonl`))).toBe(true);
  });

  it('DEBUG_COMPLETE exits 0; a session that records no state exits 1; bad requests exit 2 without an agent', async () => {
    const loop = await feature();
    await loop.agent(1, { jsonl: finishedRun('debug-3', 'I tried things.') });
    await loop.agent(2, {
      sh: investigates('{"state":"DEBUG_COMPLETE","summary":"fixed and verified"}'),
      jsonl: finishedRun('debug-4', 'Fixed.'),
    });
    const noArgs = await loop.run(['debug']);
    expect(noArgs.code).toBe(2);
    expect(noArgs.stderr).toContain('describe the problem');
    const noSession = await loop.run(['debug', '--continue']);
    expect(noSession.code).toBe(2);
    expect(noSession.stderr).toContain('no session to continue');
    expect(await loop.calls()).toBe(0);
    const silent = await loop.run(['debug', 'the widget vanishes']);
    expect(silent.code).toBe(1);
    expect(silent.stderr).toContain(
      'ralph: the agent ended the session without recording its state',
    );
    const again = await loop.run(['debug', 'another problem']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--continue');
    const fixed = await loop.run(['debug', '--reset', 'the widget vanishes on save']);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain('Debug session 1: DEBUG_COMPLETE — fixed and verified');
    const both = await loop.run(['debug', '--continue', '--reset', 'x']);
    expect(both.code).toBe(2);
    expect(await loop.calls()).toBe(2);
  });
});
