/**
 * Writes a stream of whole-file snapshots (status.json) off the caller's path: `set` returns at
 * once and the newest snapshot is written next, one write at a time. Snapshots set while a write
 * is under way collapse into the newest, so a burst of events costs at most two writes, and no
 * write is ever torn or reordered (each is still a full atomic replace through `write`).
 * Why: each atomic write costs two fsyncs, 0.4-7 ms each on these disks; awaited three times per
 * iteration they were most of ralph's own per-iteration cost (issue 10, design.md §6).
 * A failed write is not lost: the next `set` or `flush` throws it.
 */
export interface LatestWriter<T> {
  /** Queues `value` as the newest snapshot; throws an earlier write's failure. */
  set(value: T): void;
  /** Resolves once every snapshot set so far is written; throws a write's failure. */
  flush(): Promise<void>;
}

export function latestWriter<T>(write: (value: T) => Promise<void>): LatestWriter<T> {
  let pending: { value: T } | undefined;
  let running: Promise<void> | undefined;
  let failure: { error: unknown } | undefined;

  const kick = (): void => {
    if (running !== undefined || pending === undefined) return;
    running = (async () => {
      try {
        while (pending !== undefined) {
          const next = pending;
          pending = undefined;
          await write(next.value);
        }
      } catch (error) {
        failure ??= { error };
        pending = undefined;
      } finally {
        running = undefined;
      }
    })();
  };

  const throwFailure = (): void => {
    if (failure !== undefined) throw failure.error;
  };

  return {
    set(value) {
      throwFailure();
      pending = { value };
      kick();
    },
    async flush() {
      while (running !== undefined) await running;
      throwFailure();
    },
  };
}
