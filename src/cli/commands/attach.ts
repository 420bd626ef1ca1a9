import { Command, InvalidArgumentError } from '@commander-js/extra-typings';
import { countEvents, followEvents } from '../../monitor/event-stream.js';
import { parseEvent, type MonitorEvent, type SequencedEvent } from '../../monitor/events.js';
import { describeLoop } from '../../monitor/loops.js';
import { clockTime, describeEvent, type LineKind } from '../../monitor/view/describe.js';
import { readEvents } from '../../state/events-log.js';
import {
  colored,
  writeLine,
  writeStyledLine,
  type CliContext,
  type SetExitCode,
} from '../context.js';
import { reportError } from '../exit.js';
import { useColor } from '../output.js';
import { resolveWatchTarget } from './watch-target.js';

const KIND_COLORS: Record<LineKind, number | undefined> = {
  run: 36,
  iteration: 35,
  tool: undefined,
  text: 90,
  good: 32,
  bad: 31,
  warn: 33,
  other: undefined,
};

export function attachCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('attach')
    .description(
      'Follow a running loop live from any terminal: every event as a readable line, the\n' +
        "agent's tool calls and messages included, as they happen (read from DIR/events.jsonl).\n" +
        'Ctrl+C detaches and leaves the loop running; attach ends by itself when the run ends.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option(
      '--history <n>',
      'events of the current run to show first (default 20; 0 for none)',
      parseCount,
    )
    .option('--json', 'print each event as its JSON line instead of text')
    .action(async (dir, options) => {
      try {
        const target = await resolveWatchTarget(context, dir);
        const loop = await describeLoop(target.dir, { repoRoot: target.repoRoot });
        const color = useColor(context) && options.json !== true;
        const print = (event: MonitorEvent): void => {
          if (options.json === true) writeLine(context.stdout, jsonOf(event));
          else writeStyledLine(context.stdout, textOf(event, color));
        };
        const keep = options.history ?? 20;
        if (loop.state !== 'RUNNING') {
          writeLine(context.stderr, `ralph: ${target.name} is not running (${loop.state})`);
          const events = (await readEvents(target.dir))
            .map((value) => parseEvent(value))
            .filter((event) => event !== undefined);
          const lastStart = events.findLastIndex((event) => event.type === 'run_started');
          if (keep > 0)
            for (const event of events.slice(Math.max(0, lastStart)).slice(-keep)) print(event);
          if (loop.state === 'ORPHANED' || loop.state === 'PAUSED') {
            writeLine(context.stderr, `ralph: \`ralph run ${target.name}\` resumes it`);
          }
          return;
        }
        writeLine(
          context.stderr,
          `ralph: attached to ${target.name} (pid ${loop.pid ?? '?'}); Ctrl+C detaches, the loop keeps running`,
        );
        // Everything already in the file is history: only its tail (of the current run) is shown.
        const existing = await countEvents(target.dir);
        let history: SequencedEvent[] = [];
        let replayed = existing === 0;
        const replay = (): void => {
          if (replayed) return;
          replayed = true;
          if (keep > 0) for (const { event } of history.slice(-keep)) print(event);
          history = [];
        };
        const controller = new AbortController();
        const outcome = { ended: false }; // set inside the follower's callback
        const detach = (): void => {
          controller.abort();
        };
        process.on('SIGINT', detach);
        process.on('SIGTERM', detach);
        try {
          await followEvents(target.dir, {
            signal: controller.signal,
            onEvents: (events) => {
              for (const item of events) {
                if (item.seq <= existing) {
                  if (item.event.type === 'run_started') history = [];
                  history.push(item);
                  if (history.length > keep + 1000) history = history.slice(-keep);
                  continue;
                }
                replay();
                print(item.event);
                if (item.event.type === 'run_finished') {
                  outcome.ended = true;
                  controller.abort();
                }
              }
              if ((events.at(-1)?.seq ?? 0) >= existing) replay();
            },
          });
        } finally {
          process.off('SIGINT', detach);
          process.off('SIGTERM', detach);
        }
        replay();
        if (!outcome.ended) {
          writeLine(
            context.stderr,
            `ralph: detached; the loop keeps running (\`ralph stop ${target.name}\` stops it)`,
          );
        }
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

function textOf(event: MonitorEvent, color: boolean): string {
  const line = describeEvent(event, 4000);
  const code = KIND_COLORS[line.kind];
  return `${clockTime(event.at)} ${colored(line.text, code, color)}`;
}

function jsonOf(event: MonitorEvent): string {
  return JSON.stringify(event.type === 'unknown' ? event.raw : event);
}

function parseCount(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) {
    throw new InvalidArgumentError(`expected a whole number ≥ 0, got ${JSON.stringify(value)}`);
  }
  return number;
}
