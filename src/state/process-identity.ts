import { readFileSync } from 'node:fs';

/**
 * Telling whether the process a pid names is still the one that wrote it down. Pids are reused:
 * after a crash, the pid in a lock can belong to an unrelated program, which `ralph stop` must
 * never signal and `ralph run` must not mistake for a live run.
 */

export type IsAlive = (pid: number) => boolean;
/** An identity token for the process now holding `pid`; undefined when it cannot be known. */
export type ProcessStartOf = (pid: number) => string | undefined;

/** Signal 0 probes without signalling: ESRCH means gone, EPERM means someone else's live process. */
export const isProcessAlive: IsAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return procState(pid) !== 'Z';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * On Linux: the boot id and the process's start time in clock ticks since boot (field 22 of
 * /proc/PID/stat). Together they name one process for the life of the machine: a reused pid gets
 * a later start time, and a reboot a new boot id. Elsewhere (no /proc) undefined: the pid alone
 * is all there is, and callers fall back to it.
 */
export const processStartOf: ProcessStartOf = (pid) => {
  const fields = procStatFields(pid);
  const startTicks = fields?.[STARTTIME_AFTER_COMM];
  const boot = bootId();
  if (startTicks === undefined || boot === undefined) return undefined;
  return `${boot}:${startTicks}`;
};

/**
 * Whether a recorded identity and the current one disagree, i.e. the pid now names another
 * process. Unknown on either side is not a disagreement: old locks, other platforms.
 */
export function isOtherProcess(
  pid: number,
  recorded: string | undefined,
  startOf: ProcessStartOf = processStartOf,
): boolean {
  if (recorded === undefined) return false;
  const current = startOf(pid);
  return current !== undefined && current !== recorded;
}

// After the command name, fields are 0-based from field 3 (state): starttime, field 22, is 19.
const STATE_AFTER_COMM = 0;
const STARTTIME_AFTER_COMM = 19;

/**
 * A process that has exited but was not reaped (a container whose pid 1 does not reap orphans)
 * still answers signal 0: /proc says it is a zombie (state Z), i.e. gone.
 */
function procState(pid: number): string | undefined {
  return procStatFields(pid)?.[STATE_AFTER_COMM];
}

function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces and parentheses: fields follow the last ')'.
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .trim()
      .split(' ');
  } catch {
    return undefined;
  }
}

let cachedBootId: string | null | undefined;
function bootId(): string | undefined {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId ?? undefined;
}
