import { watch, type FSWatcher } from 'node:fs';
import { readLock, type LivenessProbe } from '../state/lock.js';
import { loopPaths } from '../state/paths.js';

/**
 * Waits until the run holding a loop directory's lock is gone: the lock released, or its
 * holder dead. The loop folder is watched (releasing the lock and writing status.json both
 * change it), so a clean stop is seen at once. A process that dies without releasing the lock
 * changes nothing on disk and Node has no exit event for a process it did not start, so a
 * liveness re-check every `pollMs` covers that case. Resolves true when the run ended, false
 * when `timeoutMs` passed first.
 */
export async function waitForRunEnd(
  loopDir: string,
  options: { timeoutMs: number; pollMs?: number } & LivenessProbe,
): Promise<boolean> {
  const ended = async (): Promise<boolean> => {
    const lock = await readLock(loopDir, options).catch(() => undefined);
    return lock?.alive !== true;
  };
  if (await ended()) return true;
  return new Promise<boolean>((resolve) => {
    let watcher: FSWatcher | undefined;
    let settled = false;
    const finish = (result: boolean): void => {
      if (settled) return;
      settled = true;
      watcher?.close();
      clearInterval(poll);
      clearTimeout(timer);
      resolve(result);
    };
    const check = (): void => {
      void ended().then((done) => {
        if (done) finish(true);
      });
    };
    try {
      watcher = watch(loopPaths(loopDir).dir, check);
      watcher.on('error', () => undefined); // the poll still runs
    } catch {
      watcher = undefined;
    }
    const poll = setInterval(check, options.pollMs ?? 250);
    const timer = setTimeout(() => {
      finish(false);
    }, options.timeoutMs);
    check(); // it may have ended between the first check and the watch
  });
}
