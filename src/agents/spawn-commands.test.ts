import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInteractive, runToCompletion, startDetached } from './spawn.js';

// spawn.ts's short-command, detached and terminal starts (spawnStreaming has spawn.test.ts).

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

const sh = (script: string, timeoutMs = 20_000) =>
  runToCompletion('sh', ['-c', script], { timeoutMs, env: process.env });

describe('runToCompletion', () => {
  it('collects stdout and stderr and resolves a non-zero exit as a failed result', async () => {
    // é split across two writes: decoded once, not chunk by chunk.
    const result = await sh("printf '\\303'; sleep 0.1; printf '\\251\\n'; echo err >&2; exit 3");
    expect(result).toEqual({
      exitCode: 3,
      signal: undefined,
      failed: true,
      timedOut: false,
      idleTimedOut: false,
      isCanceled: false,
      code: undefined,
      originalMessage: undefined,
      durationMs: expect.any(Number) as number,
      stdout: 'é\n',
      stderr: 'err\n',
      isMaxBuffer: false,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(80);
  });

  it('passes env and cwd, gives stdin /dev/null (cat ends at once) and exit 0 is not failed', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-spawn-')));
    const result = await runToCompletion('sh', ['-c', 'cat; echo "$WHO"; pwd'], {
      timeoutMs: 5000,
      env: { PATH: process.env.PATH, WHO: 'ralph' },
      cwd: dir,
    });
    expect(result).toMatchObject({ exitCode: 0, failed: false, timedOut: false });
    expect(result.stdout).toBe(`ralph\n${dir}\n`);
  });

  it('kills the process with SIGKILL when the timeout passes', async () => {
    const result = await sh('echo started; exec sleep 30', 300);
    expect(result).toMatchObject({
      timedOut: true,
      failed: true,
      signal: 'SIGKILL',
      exitCode: undefined,
      isCanceled: false,
      stdout: 'started\n',
    });
    expect(result.durationMs).toBeLessThan(10_000);
  });

  it('reports the signal that ended a process, apart from a timeout', async () => {
    const result = await sh('kill -TERM $$');
    expect(result).toMatchObject({ signal: 'SIGTERM', exitCode: undefined, failed: true });
    expect(result).toMatchObject({ timedOut: false, isCanceled: false, code: undefined });
  });

  it('reports an executable that cannot be started by its code and message', async () => {
    const result = await runToCompletion('/nonexistent/tool', ['x'], { timeoutMs: 1000 });
    expect(result).toMatchObject({
      code: 'ENOENT',
      failed: true,
      exitCode: undefined,
      signal: undefined,
      timedOut: false,
      stdout: '',
      stderr: '',
    });
    expect(result.originalMessage).toContain('ENOENT');
    // A NUL byte in argv makes spawn throw synchronously: still a result, not an exception.
    const invalid = await runToCompletion('sh', ['-c', 'true\0'], { timeoutMs: 1000 });
    expect(invalid).toMatchObject({ code: 'ERR_INVALID_ARG_VALUE', failed: true });
  });

  it('kills the process when the signal aborts, and starts nothing when already aborted', async () => {
    const controller = new AbortController();
    const aborted = runToCompletion('sh', ['-c', 'exec sleep 30'], {
      timeoutMs: 20_000,
      signal: controller.signal,
    });
    setTimeout(() => {
      controller.abort();
    }, 100);
    const result = await aborted;
    expect(result).toMatchObject({ isCanceled: true, failed: true, signal: 'SIGKILL' });
    expect(result.timedOut).toBe(false);

    const dir = mkdtempSync(join(tmpdir(), 'ralph-spawn-'));
    const early = await runToCompletion('touch', [join(dir, 'ran')], {
      timeoutMs: 1000,
      signal: controller.signal,
    });
    expect(early).toMatchObject({ isCanceled: true, failed: true, exitCode: undefined });
    expect(existsSync(join(dir, 'ran'))).toBe(false);
  });

  it('stops a process whose output passes maxBuffer and keeps the first bytes', async () => {
    const result = await runToCompletion('yes', [], { timeoutMs: 20_000, maxBuffer: 1000 });
    expect(result).toMatchObject({ isMaxBuffer: true, failed: true, timedOut: false });
    expect(result.stdout).toBe('y\n'.repeat(500));
  });
});

describe('runToCompletion and what a command leaves behind', () => {
  const alive = (pid: number): boolean => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
    } catch {
      return false;
    }
  };

  it('kills the whole group on timeout, a background child holding its output included', async () => {
    const begun = Date.now();
    const result = await sh('sleep 61 & echo $!; sleep 61', 300);
    expect(result.timedOut).toBe(true);
    expect(Date.now() - begun).toBeLessThan(10_000); // not the 61 s the children sleep
    const child = Number(result.stdout.trim());
    expect(child).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(child)).toBe(false);
  });

  it('ends what a command left running in its group when it exits', async () => {
    const result = await sh('sleep 62 & echo $!');
    expect(result.exitCode).toBe(0);
    const child = Number(result.stdout.trim());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(child)).toBe(false);
  });

  it('does not wait for output a process that left the group (setsid) keeps open', async () => {
    const begun = Date.now();
    const result = await sh('setsid sh -c "echo \\$\\$; sleep 63" & sleep 0.2; echo done');
    const waited = Date.now() - begun;
    const [setFree] = result.stdout.trim().split('\n').map(Number);
    if (setFree !== undefined) started.push(setFree);
    expect(result).toMatchObject({ exitCode: 0, failed: false });
    expect(result.stdout).toContain('done');
    expect(waited).toBeLessThan(10_000); // not the 63 s its output stays open
  });
});

describe('startDetached', () => {
  it('starts a session leader writing to the given descriptor and reports its exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-spawn-'));
    const log = join(dir, 'run.log');
    const fd = openSync(log, 'a');
    // Field 6 of /proc/PID/stat is the session id: a session leader's is its own pid.
    const child = startDetached('sh', ['-c', 'echo "$$ $(cut -d" " -f6 /proc/$$/stat)"; exit 7'], {
      cwd: dir,
      env: process.env,
      outputFd: fd,
    });
    closeSync(fd); // the child has its own copy
    expect(child.pid).toBeGreaterThan(0);
    if (child.pid !== undefined) started.push(child.pid);
    const result = await child.result;
    expect(result).toMatchObject({ exitCode: 7, failed: true, signal: undefined, code: undefined });
    const [pid, session] = readFileSync(log, 'utf8').trim().split(' ').map(Number);
    expect(pid).toBe(child.pid);
    expect(session).toBe(child.pid);
  });

  it('reports an executable that cannot be started, without a pid', async () => {
    const fd = openSync('/dev/null', 'a');
    const child = startDetached('/nonexistent/ralph', [], {
      cwd: tmpdir(),
      env: process.env,
      outputFd: fd,
    });
    closeSync(fd);
    expect(child.pid).toBeUndefined();
    expect(await child.result).toMatchObject({ code: 'ENOENT', failed: true });
  });
});

describe('runInteractive', () => {
  it('resolves with the exit code or the signal, and reports a missing executable', async () => {
    expect(await runInteractive('sh', ['-c', 'exit 4'], {})).toMatchObject({
      exitCode: 4,
      failed: true,
    });
    expect(await runInteractive('sh', ['-c', 'kill -HUP $$'], {})).toMatchObject({
      signal: 'SIGHUP',
      exitCode: undefined,
    });
    expect(await runInteractive('true', [], {})).toMatchObject({ exitCode: 0, failed: false });
    expect(await runInteractive('/nonexistent/tmux', [], {})).toMatchObject({ code: 'ENOENT' });
  });
});
