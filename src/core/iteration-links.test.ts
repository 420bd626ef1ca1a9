import {
  link,
  lstat,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentAdapter, AgentRunResult } from '../agents/types.js';
import { readTaskListFile } from '../plan/read.js';
import { hasControlCharacter } from '../util/control-chars.js';
import { runIteration, type IterationSetup } from './iteration.js';

/**
 * The task list after an agent that tampered with it (issue 11, item 4): a link in its place is
 * never read through nor written through, and an id with a newline never reaches ralph's notes raw.
 */

const VICTIM = 'export PATH=/usr/bin\n';
const PRD = `${JSON.stringify({ userStories: [{ id: 'S-1', title: 't', passes: false }] }, null, 2)}\n`;

const agentResult: AgentRunResult = {
  exitCode: 0,
  exitSignal: undefined,
  timedOut: false,
  canceled: false,
  spawnError: undefined,
  sessionId: 's',
  model: 'm',
  result: undefined,
  finalText: '',
  toolCalls: [],
  rateLimits: [],
  stderrTail: '',
  lineCount: 0,
  durationMs: 1,
};

/** Runs one iteration whose agent does `tamper(prd.json, victim)`; the report and the files. */
async function iterate(tamper: (file: string, victim: string) => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-iteration-'));
  const victim = join(await mkdtemp(join(tmpdir(), 'ralph-victim-')), '.bashrc');
  await writeFile(victim, VICTIM);
  const file = join(dir, 'prd.json');
  await writeFile(file, PRD);
  const before = await readTaskListFile(file);
  const adapter: AgentAdapter = {
    id: 'claude',
    probe: () =>
      Promise.resolve({
        agent: 'claude',
        command: 'x',
        found: true,
        version: '1',
        problem: undefined,
      }),
    commandLine: () => ({ command: 'x', args: [] }),
    run: async () => {
      await tamper(file, victim);
      return agentResult;
    },
  };
  const setup: IterationSetup = {
    agent: adapter,
    cwd: dir,
    env: {},
    permission: { kind: 'skip' },
    settings: undefined,
    timeoutMs: 60_000,
    idleTimeoutMs: 60_000,
    resultGraceMs: 1_000,
    completionPatterns: [],
    signal: new AbortController().signal,
  };
  const report = await runIteration(setup, {
    before,
    story: before.taskList.stories[0]!,
    model: undefined,
    prompt: 'p',
    logFile: join(dir, 'log.jsonl'),
    onToolUse: () => undefined,
    onText: () => undefined,
  });
  return { report, file, victim };
}

describe('the task list after the agent swapped it for a link', () => {
  it('restores a regular file in place of a symbolic link, never reading or writing the victim', async () => {
    const { report, file, victim } = await iterate(async (prd, target) => {
      await rm(prd);
      await symlink(target, prd);
    });
    expect(report.restored?.problems).toEqual(['replaced the task list with a symbolic link']);
    expect((await lstat(file)).isSymbolicLink()).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(PRD);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM);
  });

  it('restores in place of a hard link to the victim, leaving the victim as it was', async () => {
    const { report, file, victim } = await iterate(async (prd, target) => {
      await rm(prd);
      await link(target, prd);
    });
    expect(report.restored?.problems).toEqual([
      'replaced the task list with a hard link (2 names for one file)',
    ]);
    expect(await readFile(file, 'utf8')).toBe(PRD);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM);
  });

  it('undoes a story id with a newline, reporting it without the raw newline', async () => {
    const { report, file } = await iterate(async (prd) => {
      const tampered = JSON.parse(PRD) as { userStories: object[] };
      tampered.userStories.push({ id: 'S-2\necho pwned >> ~/.bashrc', title: 'x', passes: false });
      await writeFile(prd, JSON.stringify(tampered, null, 2));
    });
    const problems = report.restored?.problems ?? [];
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('left the task list unreadable');
    expect(problems[0]).toContain('contains a control character (a newline, U+000A)');
    expect(hasControlCharacter(problems.join(' '))).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(PRD);
  });

  it('stops, writing nothing, when the agent moved the loop folder away and left a link to another', async () => {
    let victimDir = '';
    const iteration = iterate(async (prd, target) => {
      victimDir = dirname(target);
      await rename(dirname(prd), `${dirname(prd)}-moved`);
      await symlink(victimDir, dirname(prd));
    });
    await expect(iteration).rejects.toMatchObject({
      code: 'UNSAFE_FILE',
      message: expect.stringContaining(
        'it is another folder (moved away, or swapped for a link), not the folder ralph started with',
      ) as unknown,
    });
    expect(await readdir(victimDir)).toEqual(['.bashrc']);
  });
});
