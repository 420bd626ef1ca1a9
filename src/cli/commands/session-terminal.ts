import { createProcessGroups, type ProcessGroups } from '../../agents/process-groups.js';
import type { AgentEvent } from '../../agents/types.js';
import { writeLine, type CliContext } from '../context.js';

/**
 * What `ralph run`, `ralph verify` and `ralph debug` do in a terminal around their agents: Ctrl+C,
 * SIGTERM and a closed terminal abort (the agents' process trees are killed, state stays for the
 * next try); Ctrl+Z stops the agents with ralph and `fg` continues them; and when something ends
 * the process without an abort, no agent outlives ralph.
 */
export async function withSessionSignals<T>(
  work: (signal: AbortSignal, processGroups: ProcessGroups) => Promise<T>,
  groups: ProcessGroups = createProcessGroups(),
): Promise<T> {
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  const handlers: [NodeJS.Signals | 'exit', () => void][] = [
    ['SIGINT', stop],
    ['SIGTERM', stop],
    ['SIGHUP', stop],
    [
      'SIGTSTP',
      () => {
        suspendWithAgents(groups);
      },
    ],
    ['SIGCONT', () => void groups.signalAll('SIGCONT')],
    ['exit', () => void groups.signalAll('SIGKILL')],
  ];
  for (const [event, handler] of handlers) process.on(event, handler);
  try {
    return await work(controller.signal, groups);
  } finally {
    for (const [event, handler] of handlers) process.off(event, handler);
  }
}

/**
 * Ctrl+Z stops only the terminal's foreground process group, and the agents run in groups of
 * their own: they would go on calling tools while the guard service inside the stopped ralph
 * cannot answer — and Claude Code runs a tool whose HTTP hook times out. So the agents stop with
 * ralph, and go on with it (`fg` sends SIGCONT).
 */
function suspendWithAgents(groups: ProcessGroups): void {
  groups.signalAll('SIGSTOP');
  process.kill(process.pid, 'SIGSTOP');
}

export function verboseEvents(context: CliContext): (event: AgentEvent) => void {
  return (event) => {
    if (event.type === 'tool_use') {
      writeLine(context.stdout, `  · ${event.call.name} ${event.call.summary}`);
    } else if (event.type === 'text' && event.text.trim() !== '') {
      writeLine(context.stdout, `  “${event.text.trim().replaceAll(/\s+/g, ' ')}”`);
    }
  };
}
