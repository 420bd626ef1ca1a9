import { describe, expect, it } from 'vitest';
import { latestWriter } from './latest-writer.js';

/** A write that records its value and finishes only when the test says so. */
function gatedWrites() {
  const written: number[] = [];
  const gates: (() => void)[] = [];
  const write = (value: number) =>
    new Promise<void>((resolve) => {
      written.push(value);
      gates.push(resolve);
    });
  const release = async () => {
    gates.shift()?.();
    // Let the writer's loop take its next value.
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { written, write, release };
}

describe('latestWriter', () => {
  it('writes at once, then only the newest of what was set meanwhile', async () => {
    const { written, write, release } = gatedWrites();
    const writer = latestWriter(write);
    writer.set(1);
    writer.set(2);
    writer.set(3);
    expect(written).toEqual([1]);
    await release();
    expect(written).toEqual([1, 3]);
    await release();
    await writer.flush();
    expect(written).toEqual([1, 3]);
  });

  it('flush waits for the write under way and the one queued behind it', async () => {
    const { written, write, release } = gatedWrites();
    const writer = latestWriter(write);
    writer.set(1);
    writer.set(2);
    let flushed = false;
    const flushing = writer.flush().then(() => (flushed = true));
    await release();
    expect(flushed).toBe(false);
    await release();
    await flushing;
    expect(flushed).toBe(true);
    expect(written).toEqual([1, 2]);
  });

  it('starts again for a value set after it went idle', async () => {
    const written: number[] = [];
    const writer = latestWriter((value: number) => {
      written.push(value);
      return Promise.resolve();
    });
    writer.set(1);
    await writer.flush();
    writer.set(2);
    await writer.flush();
    expect(written).toEqual([1, 2]);
  });

  it('a failed write is thrown by the next flush and the next set', async () => {
    const writer = latestWriter(() => Promise.reject(new Error('disk full')));
    writer.set(1);
    await expect(writer.flush()).rejects.toThrow('disk full');
    expect(() => {
      writer.set(2);
    }).toThrow('disk full');
  });
});
