import type { LoopEvent, Reporter } from '../core/events.js';
import { eventsFileReporter } from '../monitor/reporters/events-file.js';
import { notifyReporter } from '../monitor/reporters/notify.js';
import { progressHistoryReporter } from '../monitor/reporters/progress-history.js';
import { statusFileReporter } from '../monitor/reporters/status-file.js';
import { summarise } from '../plan/order.js';
import { readTaskListFile } from '../plan/read.js';
import type { Clock } from '../safety/clock.js';
import { loopPaths } from '../state/paths.js';
import { readStatus } from '../state/status.js';
import { isStorageError } from '../util/storage-errors.js';
import type { RunPlan } from './plan.js';

/**
 * The reporters of a run: the loop directory's own files (status.json, events.jsonl,
 * progress.txt), the notifications config asks for, and the caller's. The caller's code must not
 * break the run: a reporter that throws is reported through `log` and gets no more events.
 */
export interface RunReporters {
  all: Reporter[];
  /** Whether run_finished has gone out (the files say how the run ended). */
  finished(): boolean;
  /**
   * For a run that failed by an exception (a bug, an adapter or callback that threw): the files
   * say ERROR with the reason, instead of RUNNING with a pid that will soon be gone.
   */
  recordFailure(error: unknown, clock: Clock): Promise<void>;
}

export function runReporters(plan: RunPlan, log: (line: string) => void): RunReporters {
  const own = stateReporters(plan, log);
  let finished = false;
  const watch: Reporter = {
    onEvent(event) {
      if (event.type === 'run_finished') finished = true;
    },
  };
  const theirs = (plan.given.reporters ?? []).map((each, index) => isolated(each, index, log));
  return {
    all: [...own, watch, ...theirs],
    finished: () => finished,
    async recordFailure(error, clock) {
      if (finished) return;
      const event = await failedRun(plan, error, clock);
      for (const reporter of own) {
        try {
          await reporter.onEvent(event);
          await reporter.close?.();
        } catch (failure) {
          log(`ralph: could not record the failed run: ${messageOf(failure)}`);
        }
      }
    },
  };
}

function stateReporters(plan: RunPlan, log: (line: string) => void): Reporter[] {
  const { loopDir, feature } = plan.options;
  const reporters = [
    eventsFileReporter(loopDir),
    statusFileReporter(loopDir, process.pid),
    progressHistoryReporter(loopPaths(loopDir).progress, (message) => {
      log(`ralph: warning: ${message}`);
    }),
  ];
  if (plan.given.notify === false) return reporters;
  reporters.push(
    notifyReporter({
      feature,
      loopDir,
      ...plan.config.notify,
      terminal: plan.given.terminal,
      env: plan.options.env,
      warn: (message) => {
        log(`ralph: warning: ${message}`);
      },
    }),
  );
  return reporters;
}

function isolated(reporter: Reporter, index: number, log: (line: string) => void): Reporter {
  let broken = false;
  const guard = async (what: string, call: () => void | Promise<void>): Promise<void> => {
    if (broken) return;
    try {
      await call();
    } catch (error) {
      broken = true;
      log(
        `ralph: reporter ${index + 1} failed on ${what} (${messageOf(error)}); it gets no more events`,
      );
    }
  };
  return {
    onEvent: (event) => guard(event.type, () => reporter.onEvent(event)),
    close: () => guard('close', () => reporter.close?.()),
  };
}

async function failedRun(plan: RunPlan, error: unknown, clock: Clock): Promise<LoopEvent> {
  const status = await readStatus(plan.options.loopDir).catch(() => undefined);
  const document = await readTaskListFile(plan.options.taskListFile).catch(() => undefined);
  const summary = document === undefined ? undefined : summarise(document.taskList);
  // A full disk, a read-only mount, a lost permission: nothing is wrong with the loop, and the
  // next run resumes it once the person has made room (util/storage-errors.ts).
  const storage = isStorageError(error);
  return {
    type: 'run_finished',
    at: clock.now().toISOString(),
    state: storage ? 'PAUSED' : 'ERROR',
    reason: storage ? messageOf(error) : `ralph failed: ${messageOf(error)}`,
    stopReason: 'fatal',
    ...(storage && error.hint !== undefined ? { hint: error.hint } : {}),
    exitCode: storage ? error.exitCode : 1,
    iterations: status?.iteration ?? 0,
    storiesPassing: summary?.passing ?? status?.storiesPassing ?? 0,
    storiesTotal: summary?.total ?? status?.storiesTotal ?? 0,
    costUsd: status?.costUsd ?? 0,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
