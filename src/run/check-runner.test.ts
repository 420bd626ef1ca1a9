import { mkdtemp } from 'node:fs/promises';
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

  it('tells test runners they run once (CI=true), unless CI is set', async () => {
    const runner = checkRunner({ env });
    const run = await runner.shell('echo "ci=$CI"', { cwd: tmpdir(), timeoutMs: 5000, signal });
    expect(run.output).toBe('ci=true\n');
  });

  it('answers git with its stdout, or undefined when git fails', async () => {
    const runner = checkRunner({ env });
    const outside = await mkdtemp(join(tmpdir(), 'ralph-nogit-'));
    expect(await runner.git(['rev-parse', '--verify', 'HEAD'], outside)).toBeUndefined();
    expect(await runner.git(['--version'], outside)).toMatch(/^git version/);
  });
});
