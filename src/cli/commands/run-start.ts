import { randomUUID } from 'node:crypto';
import { RUN_ID_VARIABLE } from '../../agents/orphans.js';
import { killRunningProcessGroups } from '../../agents/spawn.js';
import type { AgentAdapter } from '../../agents/types.js';
import type { LoopDependencies, LoopResult, runLoop as RunLoop } from '../../core/engine.js';
import type { Reporter } from '../../core/events.js';
import { eventsFileReporter } from '../../monitor/reporters/events-file.js';
import { jsonLinesReporter } from '../../monitor/reporters/json-lines.js';
import { notifyReporter } from '../../monitor/reporters/notify.js';
import { progressHistoryReporter } from '../../monitor/reporters/progress-history.js';
import { statusFileReporter } from '../../monitor/reporters/status-file.js';
import { textReporter } from '../../monitor/reporters/text.js';
import { scriptHooks } from '../../hooks/script-hooks.js';
import type { Clock } from '../../safety/clock.js';
import { archiveLoop } from '../../state/archive.js';
import { acquireLock } from '../../state/lock.js';
import type { HooksSettings } from '../../state/hooks-config-schema.js';
import type { NotifySettings } from '../../state/notify-config-schema.js';
import { loopPaths } from '../../state/paths.js';
import { writeLine, type CliContext } from '../context.js';
import { stopLeftovers } from './leftovers.js';
import { previousRun, type PreparedRun } from './run-prepare.js';
import { startRunGuard } from './run-guard.js';

export interface StartOptions {
  json: boolean;
  verbose: boolean;
  archive: boolean;
  runLoop: typeof RunLoop;
  clock: Clock;
  /** `--on-usage-limit ask`: the question on a terminal (none: ralph exits instead). */
  askUsageLimit?: LoopDependencies['askUsageLimit'];
  /** config `notify`: desktop, bell, webhook on complete, error, breaker, usage limit, budget. */
  notify?: NotifySettings;
  /** config `hooks`: the person's scripts in DIR/hooks/ (none are run without it). */
  hooks?: HooksSettings;
}

/**
 * Runs a prepared loop for real: takes the loop directory's lock, turns Ctrl+C / SIGTERM into a
 * clean pause (the agent's process tree is stopped, state PAUSED, exit 130), wires the
 * reporters, and archives a completed feature.
 */
export async function startRun(
  context: CliContext,
  prepared: PreparedRun,
  agent: AgentAdapter,
  options: StartOptions,
): Promise<LoopResult> {
  const { loopDir } = prepared.options;
  const runId = randomUUID();
  const lock = await acquireLock(loopDir, {
    pid: process.pid,
    command: `ralph run ${loopDir}`,
    now: options.clock.now(),
    runId,
  });
  // Read the resume point again now that no other run can change it underneath us.
  const warnings = [...lock.warnings, ...stopLeftovers(lock.tookOver)];
  // Everything this run starts carries the id, so a later run can find what outlives it.
  const env = { ...prepared.options.env, [RUN_ID_VARIABLE]: runId };
  const { resume, lastIteration } = await previousRun(loopDir, warnings);
  const controller = new AbortController();
  const stop = (): void => {
    controller.abort();
  };
  // The guard (run-guard.ts): if its service fails, the agents are killed and the run stops.
  const guard = await startRunGuard(context, loopDir, (error) => {
    writeLine(
      context.stderr,
      `ralph: the guard service failed (${error.message}); stopped the agent`,
    );
    stop();
  }).catch(async (error: unknown) => {
    await lock.release();
    throw error;
  });
  const unguarded = {
    ...prepared.options,
    env,
    resume,
    lastIteration,
    warnings: [...new Set([...prepared.warnings, ...warnings])],
  };
  const loopOptions = guard === undefined ? unguarded : guard.apply(unguarded);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Closing the terminal must pause the run too, or the detached agent outlives ralph.
  process.on('SIGHUP', stop);
  process.on('SIGTSTP', suspend);
  process.on('SIGCONT', carryOn);
  const out = (line: string): void => {
    writeLine(options.json ? context.stderr : context.stdout, line);
  };
  const reporters: Reporter[] = [
    eventsFileReporter(loopDir),
    statusFileReporter(loopDir, process.pid),
    progressHistoryReporter(loopPaths(loopDir).progress),
    options.json
      ? jsonLinesReporter((line) => {
          writeLine(context.stdout, line);
        })
      : textReporter(out, { verbose: options.verbose }),
  ];
  if (options.notify !== undefined) {
    // The bell only where a person may hear it: a terminal, not run.log.
    const isTty = (context.stderr as { isTTY?: boolean }).isTTY === true;
    reporters.push(
      notifyReporter({
        feature: prepared.options.feature,
        loopDir,
        ...options.notify,
        terminal: isTty ? context.stderr : undefined,
        warn: (message) => {
          writeLine(context.stderr, `ralph: warning: ${message}`);
        },
      }),
    );
  }
  const hooks =
    options.hooks?.enabled === true
      ? scriptHooks({
          loopDir,
          cwd: prepared.options.cwd,
          // Not the agent's environment: the guard's token stays with the agent.
          env,
          timeoutMs: options.hooks.timeoutSeconds * 1000,
          output: (point, line) => {
            writeLine(context.stderr, `ralph: hook ${point}: ${line}`);
          },
        })
      : undefined;
  try {
    const result = await options.runLoop(loopOptions, {
      agent,
      reporters,
      clock: options.clock,
      signal: controller.signal,
      askUsageLimit: options.askUsageLimit,
      hooks,
    });
    // Archive a feature once, when this run finished it: not again on every later `ralph run`.
    const finishedNow = result.iterations > (resume?.iteration ?? lastIteration);
    if (result.state === 'COMPLETE' && options.archive && finishedNow) {
      const target = await archiveLoop(loopDir, {
        feature: prepared.options.feature,
        now: options.clock.now(),
      });
      if (!options.json) out(`ralph: archived to ${target}`);
    }
    return result;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    process.off('SIGHUP', stop);
    process.off('SIGTSTP', suspend);
    process.off('SIGCONT', carryOn);
    await guard?.close();
    await lock.release();
  }
}

/**
 * Ctrl+Z stops only the terminal's foreground process group, and the agents run in groups of
 * their own: they would go on calling tools while the guard service inside the stopped ralph
 * cannot answer — and Claude Code runs a tool whose HTTP hook times out. So the agents stop with
 * ralph, and go on with it (`fg` sends SIGCONT).
 */
function suspend(): void {
  killRunningProcessGroups('SIGSTOP');
  process.kill(process.pid, 'SIGSTOP');
}

function carryOn(): void {
  killRunningProcessGroups('SIGCONT');
}
