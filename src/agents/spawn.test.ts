import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessGroups } from './process-groups.js';
import { spawnStreaming } from './spawn.js';
import type { StreamingOptions } from './spawn.js';

/** True once `pid` has exited; a zombie counts as gone (PID 1 in a container may not reap). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function waitUntilGone(pid: number, withinMs = 10_000): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (isGone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return isGone(pid);
}

const spawned: number[] = [];
afterEach(() => {
  // A failing test must not leave sleeps behind.
  for (const pid of spawned.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

function run(script: string, options: Partial<StreamingOptions> = {}) {
  const lines: string[] = [];
  const promise = spawnStreaming('sh', ['-c', script], {
    cwd: process.cwd(),
    env: process.env,
    timeoutMs: 20_000,
    killGraceMs: 300,
    onLine: (line) => {
      lines.push(line);
    },
    ...options,
  });
  return { lines, promise };
}

describe('spawnStreaming', () => {
  it('streams lines (\\r\\n, no final newline) and resolves with the exit code and duration', async () => {
    const started = performance.now();
    const { lines, promise } = run("sleep 0.2; printf 'a\\r\\nb\\n\\nc'; echo oops >&2; exit 3");
    const failed = await promise;
    const elapsed = performance.now() - started;
    expect(lines).toEqual(['a', 'b', '', 'c']);
    expect(failed).toEqual({
      exitCode: 3,
      signal: undefined,
      failed: true,
      timedOut: false,
      idleTimedOut: false,
      isCanceled: false,
      code: undefined,
      originalMessage: undefined,
      durationMs: expect.any(Number) as number,
    });
    // The run's own time: at least the sleep in it, at most the time this test waited for it.
    expect(failed.durationMs).toBeGreaterThanOrEqual(190);
    expect(failed.durationMs).toBeLessThanOrEqual(elapsed + 1);
  });

  it('runs the command a wrapper makes of it, and reads its 128+N exits as signal N when told', async () => {
    const wrapper = (carries: boolean) => (file: string, args: readonly string[]) => ({
      file: 'sh',
      args: ['-c', 'echo wrapped; "$@"', 'wrapper', file, ...args],
      exitCodeCarriesSignal: carries,
    });
    const wrapped = run('echo inner; exit 137', { wrap: wrapper(true) });
    expect(await wrapped.promise).toMatchObject({ exitCode: undefined, signal: 'SIGKILL' });
    expect(wrapped.lines).toEqual(['wrapped', 'inner']);
    const plain = run('exit 137', { wrap: wrapper(false) });
    expect(await plain.promise).toMatchObject({ exitCode: 137, signal: undefined });
    expect(await run('exit 3', { wrap: wrapper(true) }).promise).toMatchObject({ exitCode: 3 });
  });

  it('passes stderr to onStderr and resolves a clean exit with code 0', async () => {
    let stderr = '';
    const result = await run('echo err >&2', { onStderr: (chunk) => (stderr += chunk) }).promise;
    expect(stderr).toBe('err\n');
    expect(result).toMatchObject({
      exitCode: 0,
      signal: undefined,
      failed: false,
      timedOut: false,
    });
  });

  it('decodes a multi-byte character split across two writes', async () => {
    const lines: string[] = [];
    const script =
      'process.stdout.write(Buffer.from([0xc3]));' +
      'setTimeout(() => process.stdout.write(Buffer.from([0xa9, 0x0a, 0xe2, 0x9c])), 50);' +
      'setTimeout(() => process.stdout.write(Buffer.from([0x85, 0x0a])), 100);';
    await spawnStreaming(process.execPath, ['-e', script], {
      cwd: process.cwd(),
      env: process.env,
      timeoutMs: 10_000,
      onLine: (line) => {
        lines.push(line);
      },
    });
    expect(lines).toEqual(['é', '✅']);
  });

  it('feeds `input` to stdin and closes it; a child that never reads it is no error', async () => {
    const big = `${'x'.repeat(1024 * 1024)}\nEND`;
    const { lines, promise } = run('wc -c', { input: big });
    expect(await promise).toMatchObject({ exitCode: 0, failed: false });
    expect(lines.map((line) => line.trim())).toEqual([String(Buffer.byteLength(big))]);
    // Exits at once: the pipe breaks (EPIPE) under ralph's write, which must not throw.
    const early = run('exit 4', { input: big });
    expect(await early.promise).toMatchObject({ exitCode: 4 });
    // Without input, stdin is /dev/null: a reader sees its end at once.
    const none = run('cat; echo done');
    expect(await none.promise).toMatchObject({ exitCode: 0 });
    expect(none.lines).toEqual(['done']);
  });

  it('reports a missing executable by its code and runs nothing', async () => {
    const result = await spawnStreaming('/nonexistent/claude', [], {
      cwd: process.cwd(),
      env: process.env,
      timeoutMs: 1000,
      onLine: () => undefined,
    });
    expect(result).toMatchObject({
      code: 'ENOENT',
      originalMessage: expect.stringContaining('ENOENT') as string,
      failed: true,
      exitCode: undefined,
      signal: undefined,
      isCanceled: false,
    });
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    let pid = 0;
    const { lines, promise } = run('sleep 60 & echo $!; sleep 60', {
      timeoutMs: 300,
      onSpawn: (child) => {
        pid = child;
        spawned.push(child);
      },
    });
    const result = await promise;
    expect(result).toMatchObject({ timedOut: true, isCanceled: false, exitCode: undefined });
    expect(result).toMatchObject({ signal: 'SIGTERM', failed: true, idleTimedOut: false });
    const grandchild = Number(lines[0]);
    spawned.push(grandchild);
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitUntilGone(grandchild)).toBe(true);
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntilGone(pid)).toBe(true);
  });

  it('kills the group when the signal aborts, and does not start when already aborted', async () => {
    const controller = new AbortController();
    const { lines, promise } = run('sleep 60 & echo $!; echo ready; sleep 60', {
      signal: controller.signal,
      onLine: (line) => {
        lines.push(line);
        if (line === 'ready') controller.abort();
      },
    });
    const result = await promise;
    expect(result).toMatchObject({ isCanceled: true, timedOut: false, signal: 'SIGTERM' });
    expect(result.failed).toBe(true);
    spawned.push(Number(lines[0]));
    expect(await waitUntilGone(Number(lines[0]))).toBe(true);

    let started = false;
    const early = await run('true', { signal: controller.signal, onSpawn: () => (started = true) })
      .promise;
    expect(early).toMatchObject({ isCanceled: true, failed: true, exitCode: undefined });
    expect(started).toBe(false);
  });

  it('SIGKILLs a group that ignores SIGTERM once the grace period is over', async () => {
    const { lines, promise } = run("trap '' TERM; sleep 60 & echo $!; sleep 60", {
      timeoutMs: 200,
      killGraceMs: 400,
    });
    const result = await promise;
    spawned.push(Number(lines[0]));
    expect(result).toMatchObject({ timedOut: true, signal: 'SIGKILL', exitCode: undefined });
    expect(result.durationMs).toBeGreaterThanOrEqual(550);
    expect(await waitUntilGone(Number(lines[0]))).toBe(true);
  });

  it('kills the group when no output arrives within the idle limit', async () => {
    const { lines, promise } = run('echo one; sleep 0.1; echo two; sleep 60', {
      idleTimeoutMs: 400,
    });
    const result = await promise;
    expect(lines).toEqual(['one', 'two']);
    expect(result).toMatchObject({ timedOut: true, idleTimedOut: true, isCanceled: false });
  });

  it('does not wait for a background job the agent left holding stdout', async () => {
    const { lines, promise } = run('sleep 60 & echo $!; echo done');
    const result = await promise;
    spawned.push(Number(lines[0]));
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.durationMs).toBeLessThan(5000);
    expect(await waitUntilGone(Number(lines[0]))).toBe(true);
  });

  it('stops waiting for output a process outside the group (setsid) still holds, and resolves', async () => {
    // The daemon leaves the agent's process group, so no group kill reaches it, and it keeps
    // the stdout pipe open; the agent itself exits at once.
    const { lines, promise } = run("setsid -f sh -c 'echo $$; exec sleep 30'; echo done");
    const result = await promise;
    const daemon = Number(lines.find((line) => /^\d+$/.test(line)));
    spawned.push(daemon);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, isCanceled: false });
    expect(lines).toContain('done');
    // The grace period (300 ms here) plus a second, not the daemon's 30 s or the wall timeout.
    expect(result.durationMs).toBeLessThan(5000);
  });

  it('holds output back while onLine returns a promise, and rejects when onLine throws', async () => {
    const seen: string[] = [];
    await run('echo a; echo b; echo c', {
      onLine: async (line) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        seen.push(line);
      },
    }).promise;
    expect(seen).toEqual(['a', 'b', 'c']);

    const failing = run('echo a; sleep 60', {
      onLine: () => {
        throw new Error('reporter bug');
      },
    });
    await expect(failing.promise).rejects.toThrow('reporter bug');
  });

  it('streams 30 MB line by line while the process is still running, with flat memory', async () => {
    // The child prints 30 MB, then "END", then waits: only a streaming reader sees END before
    // the child exits, and it is killed the moment END arrives.
    const line = 'x'.repeat(99);
    const controller = new AbortController();
    let count = 0;
    let bytes = 0;
    let sawEnd = false;
    const heap = { min: Infinity, max: 0 };
    const result = await spawnStreaming(
      'sh',
      ['-c', `yes '${line}' | head -n 300000; echo END; sleep 60`],
      {
        cwd: process.cwd(),
        env: process.env,
        timeoutMs: 20_000,
        killGraceMs: 300,
        signal: controller.signal,
        onLine: (text) => {
          if (text === 'END') {
            sawEnd = true;
            controller.abort();
            return;
          }
          count += 1;
          bytes += text.length + 1;
          if (count % 10_000 === 0) {
            const used = process.memoryUsage().heapUsed;
            heap.min = Math.min(heap.min, used);
            heap.max = Math.max(heap.max, used);
          }
        },
      },
    );
    expect(sawEnd).toBe(true);
    expect(result.isCanceled).toBe(true);
    expect(count).toBe(300_000);
    expect(bytes).toBe(30_000_000);
    // Measured: ~4 MB of garbage between collections; a reader that kept the lines grows by ~50 MB.
    expect(heap.max - heap.min).toBeLessThan(16 * 1024 * 1024);
  });

  it("kills every group of its run, and only its run's", async () => {
    const mine = createProcessGroups();
    const theirs = createProcessGroups();
    const other = run('echo $$; sleep 60', { processGroups: theirs, onLine: () => undefined });
    let killed: number | undefined;
    const { lines, promise } = run('sleep 60 & echo $!; echo ready; sleep 60', {
      processGroups: mine,
      onLine: (line) => {
        lines.push(line);
        if (line === 'ready') killed = mine.signalAll('SIGKILL');
      },
    });
    const result = await promise;
    expect(killed).toBe(1);
    expect(result.signal).toBe('SIGKILL');
    expect(await waitUntilGone(Number(lines[0]))).toBe(true);
    // The other run's agent is untouched until its own run stops it.
    expect(theirs.signalAll('SIGKILL')).toBe(1);
    expect((await other.promise).signal).toBe('SIGKILL');
  });
});
