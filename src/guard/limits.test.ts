import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeToolCall } from './decide.js';
import { MAX_GLOB_NAMES } from './limits.js';
import { resolvePolicy } from './policy.js';
import { loadShellParser } from './shell/parse.js';

/**
 * The review's pathological command: brace expansion and globs over a huge folder once kept the
 * guard busy for 517 s. Bounded now: the decision is a quick deny that names the bound.
 */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-limits-')));
const project = join(root, 'project');
const FILES = 20_000;

beforeAll(async () => {
  mkdirSync(join(project, 'big'), { recursive: true });
  for (let i = 0; i < FILES; i++) writeFileSync(join(project, 'big', `f${i}`), '');
  await loadShellParser();
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const policy = () =>
  resolvePolicy({ projectRoot: project, homeDir: join(root, 'home'), unattended: true });
const judge = (command: string) =>
  judgeToolCall({ toolName: 'Bash', toolInput: { command }, cwd: project }, policy());

describe('the bounds on one decision', () => {
  it('refuses globs matched against more names than the bound, quickly', () => {
    // 2 048 glob words over 20 000 names: 41 million matches unbounded.
    const started = performance.now();
    const verdict = judge(`cat big/${'{a,b}'.repeat(11)}*`);
    const elapsed = performance.now() - started;
    expect(verdict).toMatchObject({ decision: 'deny', rule: 'too-large' });
    expect(verdict.reason).toContain(String(MAX_GLOB_NAMES));
    expect(elapsed).toBeLessThan(2000);
  });

  it('still judges an ordinary glob over the same folder', () => {
    expect(judge('cat big/f1*').decision).toBe('allow');
  });

  it('refuses a brace expansion of millions of words without expanding it', () => {
    const verdict = judge(`echo ${'{a,b}'.repeat(30)}`);
    expect(verdict).toMatchObject({ decision: 'deny', rule: 'too-large' });
  });
});
