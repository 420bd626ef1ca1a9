import { jsonLinesReporter } from '../../monitor/reporters/json-lines.js';
import { textReporter } from '../../monitor/reporters/text.js';
import type { RunPlan } from '../../run/plan.js';
import { launchRun, type RunResult } from '../../run/start-run.js';
import { writeLine, type CliContext } from '../context.js';
import { usageLimitPrompt } from './run-ask.js';
import { withSessionSignals } from './session-terminal.js';

/**
 * `ralph run` in a terminal, over the library's launchRun: the process's signals become the
 * run's AbortSignal (session-terminal.ts; an abort pauses the run: state PAUSED, exit 130,
 * resumable), its events are printed as text or JSON lines, and what is no event (hook output, a
 * failing guard service) goes to stderr.
 */
export async function runInTerminal(
  context: CliContext,
  plan: RunPlan,
  output: { json: boolean; verbose: boolean },
): Promise<RunResult> {
  const out = (line: string): void => {
    writeLine(output.json ? context.stderr : context.stdout, line);
  };
  const isTty = (context.stderr as { isTTY?: boolean }).isTTY === true;
  return withSessionSignals(async (signal) => {
    const result = await launchRun({
      ...plan,
      given: {
        ...plan.given,
        signal,
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
  }, plan.processGroups);
}
