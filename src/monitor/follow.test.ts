import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEvents, followEvents } from './event-stream.js';
import { followLines } from './follow.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ralph-follow-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Follows `file` with fs.watch only (no fallback poll), collecting lines. */
function collect(file: string, options: { offset?: number; finalRead?: boolean } = {}) {
  const lines: string[] = [];
  const controller = new AbortController();
  let resets = 0;
  const done = followLines(file, {
    signal: controller.signal,
    pollMs: 0,
    onLines: (batch) => {
      lines.push(...batch);
    },
    onReset: () => {
      resets += 1;
    },
    ...options,
  });
  const stop = (): void => {
    controller.abort();
  };
  return { lines, stop, done, resets: () => resets };
}

async function until(check: () => boolean, withinMs = 10_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('followLines', () => {
  it('reads what is there, then each append as it happens, whole lines only', async () => {
    const file = join(root, 'a.jsonl');
    await writeFile(file, 'one\ntwo\n');
    const follower = collect(file);
    await until(() => follower.lines.length === 2);
    await appendFile(file, 'thr');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(follower.lines).toEqual(['one', 'two']); // half a line waits for its newline
    await appendFile(file, 'ee\nfour\n');
    await until(() => follower.lines.length === 4); // pollMs 0: only the folder watch delivers
    expect(follower.lines).toEqual(['one', 'two', 'three', 'four']);
    follower.stop();
    await follower.done;
  });

  it('waits for a file that does not exist yet, in a folder that does', async () => {
    const file = join(root, 'later.jsonl');
    const follower = collect(file);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(follower.lines).toEqual([]);
    await writeFile(file, 'hello\n');
    await until(() => follower.lines.length === 1);
    follower.stop();
    await follower.done;
    expect(follower.lines).toEqual(['hello']);
    expect(follower.resets()).toBe(0);
  });

  it('starts from an offset, and starts over when the file is replaced by a shorter one', async () => {
    const file = join(root, 'b.jsonl');
    await writeFile(file, 'skip\nkeep\n');
    const follower = collect(file, { offset: 5 });
    await until(() => follower.lines.length === 1);
    expect(follower.lines).toEqual(['keep']);
    await writeFile(file, 'new\n');
    await until(() => follower.lines.length === 2);
    expect(follower.lines).toEqual(['keep', 'new']);
    expect(follower.resets()).toBe(1);
    follower.stop();
    await follower.done;
  });

  it('with finalRead, gets the tail written just before it was stopped', async () => {
    const file = join(root, 'c.jsonl');
    await writeFile(file, '');
    const follower = collect(file, { finalRead: true });
    await appendFile(file, 'last words\n');
    follower.stop(); // before the watch event could be handled
    await follower.done;
    expect(follower.lines).toEqual(['last words']);
  });

  it('falls back to polling where no watch event comes (a folder created later)', async () => {
    const folder = join(root, 'not-yet');
    const file = join(folder, 'd.jsonl');
    const lines: string[] = [];
    const controller = new AbortController();
    const done = followLines(file, {
      signal: controller.signal,
      pollMs: 20,
      onLines: (batch) => {
        lines.push(...batch);
      },
    });
    expect(lines).toEqual([]);
    await mkdir(folder);
    await writeFile(file, 'found\n');
    await until(() => lines.length === 1);
    controller.abort();
    await done;
    expect(lines).toEqual(['found']);
  });
});

describe('followEvents', () => {
  it('numbers events by their line, skipping what does not parse but counting it', async () => {
    const dir = join(root, 'loop');
    await mkdir(dir);
    const file = join(dir, 'events.jsonl');
    await writeFile(
      file,
      `${JSON.stringify({ type: 'warning', at: '2026-11-22T10:00:00Z', message: 'a' })}\nnot json\n`,
    );
    expect(await countEvents(dir)).toBe(2);
    const seen: number[] = [];
    const controller = new AbortController();
    const done = followEvents(dir, {
      signal: controller.signal,
      pollMs: 0,
      onEvents: (events) => {
        seen.push(...events.map((each) => each.seq));
      },
    });
    await until(() => seen.length === 1);
    await appendFile(file, `${JSON.stringify({ type: 'new_kind', at: '2026-11-22T10:00:01Z' })}\n`);
    await until(() => seen.length === 2);
    expect(seen).toEqual([1, 3]);
    controller.abort();
    await done;
  });
});
