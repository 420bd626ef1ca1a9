import type { ProcessGroups } from '../../agents/process-groups.js';
import { jsonLinesReporter } from '../../monitor/reporters/json-lines.js';
import { textReporter } from '../../monitor/reporters/text.js';
import type { RunPlan } from '../../run/plan.js';
import { launchRun, type RunResult } from '../../run/start-run.js';
import { writeLine, type CliContext } from '../context.js';
import { usageLimitPrompt } from './run-ask.js';

/**
 * `ralph run` in a terminal, over the library's launchRun: the process's signals become the
 * run's AbortSignal (Ctrl+C, SIGTERM and a closed terminal pause it: state PAUSED, exit 130,
 * resumable), its events are printed as text or JSON lines, and what is no event (hook output, a
 * failing guard service) goes to stderr.
 */
export async function runInTerminal(
  context: CliContext,
  plan: RunPlan,
  output: { json: boolean; verbose: boolean },
): Promise<RunResult> {
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  const groups = plan.processGroups;
  const suspend = (): void => {
    suspendWithAgents(groups);
  };
  const carryOn = (): void => {
    groups.signalAll('SIGCONT');
  };
  // The last resort when something ends the process without a pause: no agent outlives ralph.
  const killAgents = (): void => {
    groups.signalAll('SIGKILL');
  };
  const handlers: [NodeJS.Signals | 'exit', () => void][] = [
    ['SIGINT', stop],
    ['SIGTERM', stop],
    // Closing the terminal must pause the run too, or the detached agent outlives ralph.
    ['SIGHUP', stop],
    ['SIGTSTP', suspend],
    ['SIGCONT', carryOn],
    ['exit', killAgents],
  ];
  for (const [event, handler] of handlers) process.on(event, handler);
  const out = (line: string): void => {
    writeLine(output.json ? context.stderr : context.stdout, line);
  };
  const isTty = (context.stderr as { isTTY?: boolean }).isTTY === true;
  try {
    const result = await launchRun({
      ...plan,
      given: {
        ...plan.given,
        signal: controller.signal,
        reporters: [
          output.json
            ? jsonLinesReporter((line) => {
                writeLine(context.stdout, line);
              })
            : textReporter(out, { verbose: output.verbose }),
        ],
        log: (line) => {
          writeLine(context.stderr, line);
        },
        // The bell only where a person may hear it: a terminal, not run.log.
        terminal: isTty ? context.stderr : undefined,
        askUsageLimit: usageLimitPrompt(),
      },
    });
    if (result.archivedTo !== undefined && !output.json)
      out(`ralph: archived to ${result.archivedTo}`);
    return result;
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
