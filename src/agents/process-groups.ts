/**
 * The agent process groups one run has started and not yet seen end. Each run owns one (no
 * module-level set: two runs in one process must not stop each other's agents). The run uses it
 * to SIGKILL its agents at once when its guard service fails; the CLI also uses it to stop and
 * continue them with ralph (Ctrl+Z, `fg`) and as a last resort when its process exits.
 */
export interface ProcessGroups {
  add(pid: number): void;
  delete(pid: number): void;
  /** Sends `signal` to every group still running; returns how many there were. */
  signalAll(signal: NodeJS.Signals): number;
}

export function createProcessGroups(): ProcessGroups {
  const groups = new Set<number>();
  return {
    add: (pid) => groups.add(pid),
    delete: (pid) => groups.delete(pid),
    signalAll(signal) {
      let count = 0;
      for (const pid of groups) if (signalGroup(pid, signal)) count += 1;
      return count;
    },
  };
}

/** Signals every member of the group `pid` leads; false when none is left (ESRCH) or allowed. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
