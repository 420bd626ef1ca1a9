import { stopRunProcesses } from '../agents/orphans.js';
import type { LockHolder } from '../state/lock.js';

/** What dead runs of this loop directory left running (agents/orphans.ts), stopped; as warnings. */
export function stopLeftovers(dead: readonly LockHolder[]): string[] {
  return dead.flatMap((holder) => {
    const stopped = holder.runId === undefined ? [] : stopRunProcesses(holder.runId);
    if (stopped.length === 0) return [];
    const count = `${stopped.length} process${stopped.length === 1 ? '' : 'es'}`;
    return [
      `stopped ${count} the dead run (pid ${holder.pid}) had left running: ${stopped.join(', ')}`,
    ];
  });
}
