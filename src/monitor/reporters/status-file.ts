import type { LoopEvent, Reporter, RunState } from '../../core/events.js';
import { latestWriter } from '../../state/latest-writer.js';
import { STATUS_SCHEMA_VERSION, writeStatus, type Status } from '../../state/status.js';
import { folderPin } from '../../util/no-follow.js';

/**
 * Keeps status.json current. It is rewritten whole (atomically) on every event that changes
 * what a reader would show — not on each line of agent output, which would cost a file write
 * per tool call for no new information. While ralph waits (usage limit, rate limit, retry),
 * `waiting` holds the countdown, refreshed about once a minute.
 * Each write is a whole atomic replace, made in the background (latest-writer.ts): the loop does
 * not wait for the fsyncs of an iteration's own updates (BACKGROUND). Every other event waits for
 * its write: the run's start and end (the person's hooks read the file), waits (a reader sees the
 * countdown while ralph sleeps) and the breaker.
 */
const BACKGROUND: ReadonlySet<LoopEvent['type']> = new Set([
  'iteration_started',
  'agent_started',
  'iteration_finished',
  'agent_retry',
  'usage_windows',
]);

/**
 * The Ralph Hybrid spec's names for facts status.json already holds, written beside ralph's own
 * (additively: readers of either keep working). Absent facts stay absent.
 */
export function hybridFields(status: Status): Record<string, unknown> {
  const calls = status.rateLimit;
  const resets = status.waiting?.reason === 'rate_limit' ? status.waiting.until : undefined;
  return {
    status: status.state,
    storiesComplete: status.storiesPassing,
    lastUpdated: status.updatedAt,
    ...(calls?.callsLastHour === undefined ? {} : { apiCallsUsed: calls.callsLastHour }),
    ...(calls?.callsPerHour === undefined ? {} : { apiCallsLimit: calls.callsPerHour }),
    ...(resets === undefined ? {} : { rateLimitResetsAt: resets }),
  };
}

export function statusFileReporter(loopDir: string, pid: number): Reporter {
  let status: Status | undefined;
  // The seed's field names (status, storiesComplete, lastUpdated) are kept for its monitor scripts.
  // Never into another folder the agent swapped in for the loop directory (util/no-follow.ts).
  const sameFolder = folderPin(loopDir);
  const file = latestWriter(async (next: Status) => {
    await sameFolder();
    await writeStatus(loopDir, { ...next, ...hybridFields(next) });
  });
  const write = async (next: Status, wait: boolean): Promise<void> => {
    status = next;
    file.set(next);
    if (wait) await file.flush();
  };
  return {
    async onEvent(event: LoopEvent) {
      if (event.type === 'run_started') {
        await write(
          {
            schemaVersion: STATUS_SCHEMA_VERSION,
            state: 'RUNNING' satisfies RunState,
            pid,
            feature: event.feature,
            startedAt: event.at,
            updatedAt: event.at,
            iteration: event.iteration,
            maxIterations: event.maxIterations,
            storiesTotal: event.storiesTotal,
            storiesPassing: event.storiesPassing,
            costUsd: event.costUsd,
            ...(event.tokens === undefined ? {} : { tokens: { ...event.tokens } }),
            ...(event.breaker === undefined ? {} : { breaker: { ...event.breaker } }),
            ...(event.rateLimit === undefined
              ? {}
              : {
                  rateLimit: {
                    ...(event.rateLimit.callsPerHour === undefined
                      ? {}
                      : { callsPerHour: event.rateLimit.callsPerHour }),
                    ...(event.rateLimit.tokensPerHour === undefined
                      ? {}
                      : { tokensPerHour: event.rateLimit.tokensPerHour }),
                  },
                }),
          },
          true,
        );
        return;
      }
      if (status === undefined) return;
      const next = update(status, event);
      if (next !== undefined) await write(next, !BACKGROUND.has(event.type));
    },
    async close() {
      await file.flush();
    },
  };
}

/** The status after `event`, or undefined when the event changes nothing a reader shows. */
function update(status: Status, event: LoopEvent): Status | undefined {
  const base = { ...status, updatedAt: event.at };
  switch (event.type) {
    case 'iteration_started':
      return {
        ...notRetrying(notWaiting(base)),
        iteration: event.iteration,
        attempt: event.attempt,
        currentStory: {
          ...event.story,
          ...(event.model === undefined ? {} : { model: event.model }),
        },
      };
    case 'agent_started':
      return status.currentStory === undefined
        ? undefined
        : {
            ...base,
            currentStory: {
              ...status.currentStory,
              ...(event.model === undefined ? {} : { model: event.model }),
            },
            ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
          };
    case 'agent_retry':
      return {
        ...base,
        retrying: {
          at: event.at,
          ...(event.retry === undefined ? {} : { retry: event.retry }),
          ...(event.maxRetries === undefined ? {} : { maxRetries: event.maxRetries }),
          ...(event.delayMs === undefined ? {} : { delayMs: Math.max(0, event.delayMs) }),
          ...(event.errorStatus === undefined ? {} : { errorStatus: event.errorStatus }),
          ...(event.error === undefined ? {} : { error: event.error }),
        },
      };
    case 'usage_windows':
      return {
        ...base,
        usageWindows: Object.fromEntries(
          Object.entries(event.windows).map(([name, window]) => [name, { ...window }]),
        ),
        ...(event.pace === undefined ? {} : { pace: event.pace }),
      };
    case 'iteration_finished':
      return {
        ...notRetrying(base),
        storiesPassing: event.storiesPassing,
        storiesTotal: event.storiesTotal,
        lastResult: `${event.outcome}: ${event.detail}`,
        // Refused tool calls (the guard's denials among them) over the run, and the latest ones.
        ...(event.deniedTools === undefined || event.deniedTools.length === 0
          ? {}
          : {
              deniedToolCalls: (numberOr(status.deniedToolCalls) ?? 0) + event.deniedTools.length,
              lastDenied: { iteration: event.iteration, tools: event.deniedTools },
            }),
        costUsd: event.runSpend?.costUsd ?? (status.costUsd ?? 0) + (event.costUsd ?? 0),
        ...(event.runSpend === undefined ? {} : { tokens: { ...event.runSpend.tokens } }),
        ...(event.sessionId === undefined ? {} : { sessionId: event.sessionId }),
        lastIteration: {
          iteration: event.iteration,
          attempt: event.attempt,
          outcome: event.outcome,
          ...(event.classification === undefined ? {} : { classification: event.classification }),
          ...(event.costUsd === undefined ? {} : { costUsd: event.costUsd }),
          ...(event.usage === undefined ? {} : { tokens: { ...event.usage } }),
          durationMs: event.durationMs,
        },
        ...(event.storySpend === undefined
          ? {}
          : {
              stories: {
                ...status.stories,
                [event.story.id]: {
                  costUsd: event.storySpend.costUsd,
                  tokens: { ...event.storySpend.tokens },
                },
              },
            }),
        ...(event.breaker === undefined ? {} : { breaker: { ...event.breaker } }),
        ...(event.callsLastHour === undefined
          ? {}
          : { rateLimit: { ...status.rateLimit, callsLastHour: event.callsLastHour } }),
      };
    case 'breaker_changed':
      return { ...base, breaker: { ...event.breaker } };
    case 'wait_started':
      return {
        ...base,
        waiting: {
          reason: event.reason,
          since: event.at,
          until: event.until,
          remainingSeconds: Math.ceil(event.durationMs / 1000),
          detail: event.detail,
        },
      };
    case 'wait_progress':
      return status.waiting === undefined
        ? undefined
        : {
            ...base,
            waiting: { ...status.waiting, remainingSeconds: Math.ceil(event.remainingMs / 1000) },
          };
    case 'wait_finished':
      return notWaiting(base);
    case 'run_finished':
      return {
        ...notWaiting(base),
        state: event.state,
        storiesPassing: event.storiesPassing,
        storiesTotal: event.storiesTotal,
        exitReason: event.reason,
        costUsd: event.costUsd,
        ...(event.tokens === undefined ? {} : { tokens: { ...event.tokens } }),
        ...(event.stopReason === undefined ? {} : { stopReason: event.stopReason }),
        ...(event.hint === undefined ? {} : { hint: event.hint }),
      };
    default:
      return undefined;
  }
}

function notRetrying(status: Status): Status {
  const copy = { ...status };
  delete copy.retrying;
  return copy;
}

function notWaiting(status: Status): Status {
  const copy = { ...status };
  delete copy.waiting;
  return copy;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
