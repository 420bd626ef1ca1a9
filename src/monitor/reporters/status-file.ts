import type { LoopEvent, Reporter, RunState } from '../../core/events.js';
import { STATUS_SCHEMA_VERSION, writeStatus, type Status } from '../../state/status.js';

/**
 * Keeps status.json current. It is rewritten whole (atomically) on every event that changes
 * what a reader would show — not on each line of agent output, which would cost a file write
 * per tool call for no new information.
 */
export function statusFileReporter(loopDir: string, pid: number): Reporter {
  let status: Status | undefined;
  const write = async (next: Status): Promise<void> => {
    status = next;
    // The seed's field names (status, storiesComplete, lastUpdated) are kept for its monitor scripts.
    await writeStatus(loopDir, {
      ...next,
      status: next.state,
      storiesComplete: next.storiesPassing,
      lastUpdated: next.updatedAt,
    });
  };
  return {
    async onEvent(event: LoopEvent) {
      if (event.type === 'run_started') {
        await write({
          schemaVersion: STATUS_SCHEMA_VERSION,
          state: 'RUNNING' satisfies RunState,
          pid,
          feature: event.feature,
          startedAt: event.at,
          updatedAt: event.at,
          iteration: event.resumedAfterIteration,
          maxIterations: event.maxIterations,
          storiesTotal: event.storiesTotal,
          storiesPassing: event.storiesPassing,
          costUsd: event.costUsd,
        });
        return;
      }
      if (status === undefined) return;
      switch (event.type) {
        case 'iteration_started':
          await write({
            ...status,
            updatedAt: event.at,
            iteration: event.iteration,
            currentStory: {
              ...event.story,
              ...(event.model === undefined ? {} : { model: event.model }),
            },
          });
          return;
        case 'iteration_finished':
          await write({
            ...status,
            updatedAt: event.at,
            storiesPassing: event.storiesPassing,
            storiesTotal: event.storiesTotal,
            lastResult: `${event.outcome}: ${event.detail}`,
            costUsd: (status.costUsd ?? 0) + (event.costUsd ?? 0),
            ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
          });
          return;
        case 'run_finished':
          await write({
            ...status,
            state: event.state,
            updatedAt: event.at,
            storiesPassing: event.storiesPassing,
            storiesTotal: event.storiesTotal,
            exitReason: event.reason,
            costUsd: event.costUsd,
          });
          return;
        default:
          return;
      }
    },
  };
}
