import { readdir, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { iterationLogNumbers, loopPaths } from '../state/paths.js';

export interface IterationLog {
  iteration: number;
  attempt: number;
  file: string;
}

/** The iteration logs of a loop directory, oldest first (iteration, then attempt). */
export async function listIterationLogs(loopDir: string): Promise<IterationLog[]> {
  const { logsDir } = loopPaths(loopDir);
  const names = await readdir(logsDir).catch(() => []);
  return names
    .flatMap((name) => {
      const numbers = iterationLogNumbers(name);
      return numbers === undefined ? [] : [{ ...numbers, file: join(logsDir, name) }];
    })
    .sort((a, b) => a.iteration - b.iteration || a.attempt - b.attempt);
}

/**
 * The file of one iteration log, for serving it (web dashboard): the path is built from two
 * counters, never from a client's string, and must still resolve — symlinks followed — to a
 * file inside the loop directory. Undefined when it does not exist or leads elsewhere.
 */
export async function safeIterationLog(
  loopDir: string,
  iteration: number,
  attempt: number,
): Promise<string | undefined> {
  if (!isCounter(iteration) || !isCounter(attempt)) return undefined;
  const paths = loopPaths(loopDir);
  return insideLoopDir(paths.dir, paths.iterationLog(iteration, attempt));
}

/** `file` resolved through symlinks, if that lands inside `loopDir` (resolved too). */
export async function insideLoopDir(loopDir: string, file: string): Promise<string | undefined> {
  const [root, real] = await Promise.all([
    realpath(loopDir).catch(() => undefined),
    realpath(file).catch(() => undefined),
  ]);
  if (root === undefined || real === undefined) return undefined;
  return real.startsWith(root + sep) ? real : undefined;
}

function isCounter(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1;
}
