import { Command, InvalidArgumentError } from '@commander-js/extra-typings';
import { describeLoop } from '../../monitor/loops.js';
import { waitForRunEnd } from '../../monitor/wait-run-end.js';
import { readLock } from '../../state/lock.js';
import { readStatus } from '../../state/status.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { writeJson } from '../output.js';
import { stopLeftovers } from '../../run/leftovers.js';
import { resolveWatchTarget } from './watch-target.js';

export function stopCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('stop')
    .description(
      'Stop a running loop gracefully, from any terminal: the run gets SIGTERM, as Ctrl+C would\n' +
        "give it, ends the agent's whole process tree, records state PAUSED and releases its lock.\n" +
        '`ralph run DIR` resumes it later. Waits until the run has ended (--timeout).',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--timeout <seconds>', 'how long to wait for the run to end (default 60)', parseSeconds)
    .option('--no-wait', 'send the signal and return at once')
    .option('--json', 'print {loopDir, pid, state} as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const target = await resolveWatchTarget(context, dir);
        const loop = await describeLoop(target.dir, { repoRoot: target.repoRoot });
        if (loop.state !== 'RUNNING' || loop.pid === undefined) {
          // What a dead run left behind (a dev server, a watcher) is stopped all the same.
          // Read again, and only a dead holder's: a new run may have taken the lock meanwhile.
          const lock = await readLock(target.dir).catch(() => undefined);
          const leftovers =
            loop.state === 'ORPHANED' && lock?.holder !== undefined && !lock.alive
              ? stopLeftovers([lock.holder])
              : [];
          throw new RalphError(
            'NOT_RUNNING',
            loop.state === 'ORPHANED'
              ? `no run is active in ${target.name}: its process (pid ${loop.pid ?? '?'}) is gone without recording an end (ORPHANED)${loop.pidReused === true ? '; that pid now belongs to another process, which was left alone' : ''}${leftovers.map((each) => `; ${each}`).join('')}`
              : `no run is active in ${target.name} (state ${loop.state})`,
            {
              exitCode: 1,
              hint:
                loop.state === 'ORPHANED' || loop.state === 'PAUSED'
                  ? `\`ralph run ${target.name}\` resumes it.`
                  : '`ralph list` shows the state of every loop directory.',
            },
          );
        }
        if (loop.host !== undefined) {
          throw new RalphError(
            'NOT_RUNNING',
            `the run in ${target.name} is on host ${loop.host}, not this one`,
            { exitCode: 1, hint: `Run \`ralph stop\` on ${loop.host}.` },
          );
        }
        const { pid } = loop;
        try {
          process.kill(pid, 'SIGTERM');
        } catch (error) {
          throw new RalphError('NOT_RUNNING', `cannot signal pid ${pid}: ${String(error)}`, {
            exitCode: 1,
            hint: 'The run may belong to another user or have just ended; see `ralph list`.',
            cause: error,
          });
        }
        if (!options.wait) {
          if (json) writeJson(context, { loopDir: target.dir, pid, state: 'STOPPING' });
          else writeLine(context.stdout, `Sent SIGTERM to the run in ${target.name} (pid ${pid}).`);
          return;
        }
        const timeout = options.timeout ?? 60;
        if (!(await waitForRunEnd(target.dir, { timeoutMs: timeout * 1000 }))) {
          throw new RalphError(
            'STOP_TIMEOUT',
            `the run in ${target.name} (pid ${pid}) did not end within ${timeout} s`,
            {
              exitCode: 1,
              hint: `It may still be stopping its agent; wait, or end it with \`kill -KILL ${pid}\` (it then shows ORPHANED and \`ralph run\` resumes it).`,
            },
          );
        }
        const status = await readStatus(target.dir).catch(() => undefined);
        const state = status?.state ?? 'STOPPED';
        if (json) {
          writeJson(context, { loopDir: target.dir, pid, state, iteration: status?.iteration });
          return;
        }
        writeLine(
          context.stdout,
          `Stopped the run in ${target.name} (pid ${pid}): ${state}${
            status === undefined ? '' : ` after iteration ${status.iteration}`
          }.`,
        );
        if (state === 'PAUSED')
          writeLine(context.stdout, `Resume it with \`ralph run ${target.name}\`.`);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

function parseSeconds(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError(
      `expected a number of seconds > 0, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}
