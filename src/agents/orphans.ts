import { readdirSync, readFileSync } from 'node:fs';
import type { AgentAdapter } from './types.js';

/**
 * Processes a dead run left behind. ralph gives every process it starts for a run (agents,
 * hooks) `RALPH_RUN_ID=<id>` in its environment, and everything they start inherits it. When a
 * run is SIGKILLed (or the machine's OOM killer picks it), the agent itself dies with it
 * (parent-death.ts), but what the agent started — a dev server, a watcher, a test run — lives
 * on, holding ports and editing files. The next run of the loop directory finds them by that
 * variable (on Linux, through /proc; elsewhere there is nothing to read) and stops them.
 */

export const RUN_ID_VARIABLE = 'RALPH_RUN_ID';

/** Pids of the processes whose environment carries this run's id (this process excluded). */
export function findRunProcesses(runId: string): number[] {
  const marker = `${RUN_ID_VARIABLE}=${runId}`;
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or another user's
    }
    if (environ.split('\0').includes(marker)) found.push(Number(name));
  }
  return found;
}

/** SIGKILLs them (they belong to a run that is over); returns the pids that were signalled. */
export function stopRunProcesses(runId: string): number[] {
  const stopped: number[] = [];
  for (const pid of findRunProcesses(runId)) {
    try {
      process.kill(pid, 'SIGKILL');
      stopped.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return stopped;
}

/**
 * The agent with every process of the run stopped once each session ends: what the agent left
 * running (setsid, nohup) must not be there while ralph runs the checks, where it could swap the
 * test files only while they run (attack 17). Nothing else of the run is alive between sessions:
 * hooks and checks run to completion, and the checks do not carry the marker.
 */
export function stoppingLeftoversAfterEachSession(
  agent: AgentAdapter,
  runId: string,
  stop: (runId: string) => unknown = stopRunProcesses,
): AgentAdapter {
  const run = agent.run.bind(agent);
  const wrapped = Object.create(agent) as AgentAdapter & { run: AgentAdapter['run'] };
  Object.defineProperty(wrapped, 'run', {
    value: async (request: Parameters<AgentAdapter['run']>[0]) => {
      try {
        return await run(request);
      } finally {
        stop(runId);
      }
    },
  });
  return wrapped;
}
