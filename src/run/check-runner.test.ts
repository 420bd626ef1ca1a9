import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRunner } from './check-runner.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const signal = new AbortController().signal;

describe('checkRunner', () => {
  it('runs a shell command in cwd and keeps its exit code and output, stderr included', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'ralph-check-'));
    const run = await checkRunner({ env }).shell('pwd; echo oops >&2; exit 3', {
      cwd,
      timeoutMs: 10_000,
      signal,
    });
    expect(run).toMatchObject({ exitCode: 3, timedOut: false });
    expect(run.output).toContain(cwd);
    expect(run.output).toContain('oops');
  });

  it('kills a check past its timeout, its children with it', async () => {
    const started = Date.now();
    const run = await checkRunner({ env }).shell('sleep 30 & sleep 30; wait', {
      cwd: tmpdir(),
      timeoutMs: 300,
      signal,
    });
    expect(run.timedOut).toBe(true);
    expect(run.exitCode).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('runs checks without ralph’s variables and with the person’s CI as it is', async () => {
    const runner = checkRunner({
      env: { ...env, RALPH_RUN_ID: 'r1', RALPH_X: '1', CI: undefined },
    });
    const run = await runner.shell('echo "ci=${CI-unset}"; env | grep -c ^RALPH_ || true', {
      cwd: tmpdir(),
      timeoutMs: 5000,
      signal,
    });
    expect(run.output).toBe('ci=unset\n0\n');
  });

  it('counts the tests from the runner’s summary, stdout or stderr', async () => {
    const runner = checkRunner({ env });
    const options = { cwd: tmpdir(), timeoutMs: 5000, signal };
    const node = await runner.shell("printf '# pass 2\\n# skipped 1\\n# todo 0\\n'", options);
    expect(node.tests).toEqual({ runner: 'node', passed: 2, skipped: 1, todo: 0 });
    const jest = await runner.shell("printf 'Tests:       3 passed, 3 total' >&2", options);
    expect(jest.tests).toEqual({ runner: 'jest', passed: 3, skipped: 0, todo: 0 });
    expect((await runner.shell('echo fine', options)).tests).toBeUndefined();
  });

  it('answers git with its stdout, or undefined when git fails', async () => {
    const runner = checkRunner({ env });
    const outside = await mkdtemp(join(tmpdir(), 'ralph-nogit-'));
    expect(await runner.git(['rev-parse', '--verify', 'HEAD'], outside)).toBeUndefined();
    expect(await runner.git(['--version'], outside)).toMatch(/^git version/);
  });

  it('runs no program the repository config names: fsmonitor, hooks (attack 43)', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'ralph-fsmon-'));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env });
    git('init', '-q');
    const marker = join(repo, 'ran');
    const script = join(repo, '.git', 'fsmon.sh');
    await writeFile(script, `#!/bin/sh\necho fsmonitor >> ${marker}\nexit 1\n`);
    await chmod(script, 0o755);
    await writeFile(
      join(repo, '.git', 'hooks', 'post-index-change'),
      `#!/bin/sh\necho hook >> ${marker}\n`,
    );
    await chmod(join(repo, '.git', 'hooks', 'post-index-change'), 0o755);
    git('config', 'core.fsmonitor', script);
    await writeFile(join(repo, 'a.txt'), 'a');
    const runner = checkRunner({ env });
    expect(await runner.git(['add', 'a.txt'], repo)).toBe('');
    expect(await runner.git(['status', '--porcelain'], repo)).toBe('A  a.txt\n');
    expect(await readFile(marker, 'utf8').catch(() => 'nothing ran')).toBe('nothing ran');
    // The same repository does run them for a plain git: the test can fail.
    git('status', '--porcelain');
    expect(await readFile(marker, 'utf8')).toContain('fsmonitor');
  });
});
