import { createProcessGroups, type ProcessGroups } from '../../agents/process-groups.js';
import type { AgentEvent } from '../../agents/types.js';
import { writeLine, type CliContext } from '../context.js';

/**
 * What `ralph verify` and `ralph debug` do in a terminal around their one agent session: Ctrl+C,
 * SIGTERM and a closed terminal abort it (the agent's process tree is killed, the files stay for
 * the next try), and `-v` shows the agent's tool calls and messages as `ralph run -v` does.
 */
export async function withSessionSignals<T>(
  work: (signal: AbortSignal, processGroups: ProcessGroups) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const groups = createProcessGroups();
  const stop = (): void => {
    controller.abort();
  };
  // The last resort when something ends the process without an abort: no agent outlives ralph.
  const killAgents = (): void => {
    groups.signalAll('SIGKILL');
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const name of signals) process.on(name, stop);
  process.on('exit', killAgents);
  try {
    return await work(controller.signal, groups);
  } finally {
    for (const name of signals) process.off(name, stop);
    process.off('exit', killAgents);
  }
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
