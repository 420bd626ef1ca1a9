import { Command, InvalidArgumentError } from '@commander-js/extra-typings';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { DEFAULT_MAX_LINE_BYTES, pumpLines } from '../../agents/line-splitter.js';
import { countEvents, followEvents } from '../../monitor/event-stream.js';
import { followLines } from '../../monitor/follow.js';
import { listIterationLogs, type IterationLog } from '../../monitor/logs.js';
import { loopPaths } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { renderAgentLine, renderAuditLine, type LineRenderer } from './log-render.js';
import { resolveWatchTarget, shownPath } from './watch-target.js';

export function logsCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('logs')
    .description(
      "Show the agent's iteration logs (DIR/logs/iteration-N-attempt-M.jsonl) rendered for a\n" +
        'person: its messages, tool calls and their results, the final result with turns and\n' +
        'cost. Default: the latest iteration. -f follows it, and each new iteration as it starts,\n' +
        'until the run ends or Ctrl+C. --audit shows the guard decisions instead.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('-f, --follow', 'keep printing as the loop writes')
    .option('--iteration <n>', 'this iteration (every attempt of it)', parseIteration)
    .option('--all', 'every iteration, oldest first')
    .option('--audit', "the guard's decisions (logs/audit.jsonl)")
    .option('--raw', 'the lines exactly as written (stream-json), headers on stderr')
    .action(async (dir, options) => {
      try {
        const target = await resolveWatchTarget(context, dir);
        const raw = options.raw === true;
        const render: LineRenderer = raw
          ? (line) => (line === '' ? [] : [line])
          : options.audit === true
            ? renderAuditLine
            : renderAgentLine;
        const print = (lines: readonly string[]): void => {
          for (const line of lines)
            for (const shown of render(line)) writeLine(context.stdout, shown);
        };
        const header = (text: string): void => {
          writeLine(raw ? context.stderr : context.stdout, text);
        };
        const controller = new AbortController();
        const stop = (): void => {
          controller.abort();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
        try {
          if (options.audit === true) {
            const file = loopPaths(target.dir).auditLog;
            if (options.follow === true) {
              await followLines(file, { signal: controller.signal, onLines: print });
            } else {
              print(
                await readLines(file, () => `no audit log yet (${shownPath(context.cwd, file)})`),
              );
            }
            return;
          }
          const logs = await listIterationLogs(target.dir);
          const chosen = choose(logs, options);
          if (chosen.length === 0 && options.follow !== true) {
            throw new RalphError('USAGE', `no iteration logs in ${target.name}`, {
              hint: 'Logs appear once `ralph run` has started an iteration.',
            });
          }
          const last = chosen.at(-1);
          for (const log of chosen.slice(0, -1)) {
            header(title(log));
            await printLog(log.file, print);
          }
          if (options.follow !== true) {
            if (last !== undefined) {
              header(title(last));
              await printLog(last.file, print);
            }
            return;
          }
          await followIterations(target.dir, last, { signal: controller.signal, print, header });
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
        }
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

function choose(
  logs: readonly IterationLog[],
  options: { iteration?: number; all?: true },
): IterationLog[] {
  if (options.all === true) return [...logs];
  const iteration = options.iteration ?? logs.at(-1)?.iteration;
  const chosen = logs.filter((log) => log.iteration === iteration);
  if (options.iteration !== undefined && chosen.length === 0) {
    throw new RalphError('USAGE', `no log for iteration ${options.iteration}`, {
      hint: `Logged iterations: ${[...new Set(logs.map((log) => log.iteration))].join(', ') || 'none yet'}.`,
    });
  }
  return chosen;
}

/**
 * -f: prints the current log as it grows; when events.jsonl announces the next iteration, the
 * old log is read to its end and the new one followed. Ends when the run finishes.
 */
async function followIterations(
  loopDir: string,
  first: IterationLog | undefined,
  io: { signal: AbortSignal; print: (lines: string[]) => void; header: (text: string) => void },
): Promise<void> {
  let current: { controller: AbortController; done: Promise<void> } | undefined;
  const follow = (log: IterationLog): void => {
    io.header(title(log));
    const controller = new AbortController();
    const onAbort = (): void => {
      controller.abort();
    };
    io.signal.addEventListener('abort', onAbort, { once: true });
    const done = followLines(log.file, {
      signal: controller.signal,
      onLines: io.print,
      finalRead: true,
    }).finally(() => {
      io.signal.removeEventListener('abort', onAbort);
    });
    current = { controller, done };
  };
  const finishCurrent = async (): Promise<void> => {
    if (current === undefined) return;
    // The agent has exited before the loop moves on: the final read gets the log's tail.
    current.controller.abort();
    await current.done;
  };
  if (first !== undefined) follow(first);
  const existing = await countEvents(loopDir);
  const ended = new AbortController();
  io.signal.addEventListener('abort', () => {
    ended.abort();
  });
  await followEvents(loopDir, {
    signal: ended.signal,
    onEvents: async (events) => {
      for (const { seq, event } of events) {
        if (seq <= existing) continue;
        if (event.type === 'iteration_started') {
          await finishCurrent();
          const file = loopPaths(loopDir).iterationLog(event.iteration, event.attempt);
          follow({ iteration: event.iteration, attempt: event.attempt, file });
        } else if (event.type === 'run_finished') {
          await finishCurrent();
          ended.abort();
        }
      }
    },
  });
  await finishCurrent();
}

/**
 * A log, line by line as it is read: a log can be hundreds of megabytes, and a line of an older
 * one (written before lines were capped) as long, so neither the file nor a line is held whole.
 */
async function printLog(file: string, print: (lines: readonly string[]) => void): Promise<void> {
  await pumpLines(createReadStream(file), {
    maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    onLine: (line) => {
      print([line]);
    },
  });
}

async function readLines(file: string, missing?: () => string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && missing !== undefined) {
      throw new RalphError('USAGE', missing());
    }
    throw error;
  }
}

function title(log: IterationLog): string {
  return `── iteration ${log.iteration}${log.attempt > 1 ? `, attempt ${log.attempt}` : ''} ──`;
}

function parseIteration(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new InvalidArgumentError(`expected a whole number ≥ 1, got ${JSON.stringify(value)}`);
  }
  return number;
}
