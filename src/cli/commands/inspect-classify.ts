import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { LogSummary } from '../../agents/claude/inspect-log.js';
import { classifyRun, type RunClassification } from '../../safety/classify.js';
import type { RunEvidence } from '../../safety/evidence.js';
import { localTimeZone } from '../../safety/reset-time.js';
import type { LoopEvent } from '../../core/events.js';
import { parseEvent } from '../../monitor/events.js';
import { readEvents } from '../../state/events-log.js';

/**
 * `ralph inspect`'s verdict on a log: how the safety policies classify the run (usage limit with
 * its reset time, transient, fatal, timeout, or none) and why. A log alone lacks the exit code
 * and whether ralph killed the agent; when the log sits in a loop directory, its
 * iteration_finished event in events.jsonl supplies them (and the time relative reset times
 * count from).
 */
export interface InspectVerdict {
  kind: RunClassification['kind'];
  why: string;
  resetAt: string | null;
  hint: string | null;
  /** What the verdict rests on. */
  basis: 'log and events.jsonl' | 'log only';
}

type FinishedEvent = Extract<LoopEvent, { type: 'iteration_finished' }>;
type UsageLimitEvent = Extract<LoopEvent, { type: 'usage_limit' }>;

export async function classifyLog(file: string, summary: LogSummary): Promise<InspectVerdict> {
  const { event, limit } = await eventsFor(file);
  const result = summary.result;
  const evidence: RunEvidence = {
    exitCode:
      event !== undefined
        ? event.exitCode
        : result === undefined
          ? undefined
          : result.isError
            ? 1
            : 0,
    timedOut: event?.outcome === 'timeout',
    idleTimedOut: event?.outcome === 'timeout' && event.detail.startsWith('no output'),
    canceled: event?.outcome === 'canceled',
    spawnError: undefined,
    result,
    finalText: summary.finalText,
    assistantError: summary.assistantError,
    rateLimits: summary.rateLimits,
    stderrTail: '',
    lineCount: summary.lineCount,
  };
  const now =
    event !== undefined
      ? new Date(event.at)
      : ((await stat(file).catch(() => undefined))?.mtime ?? new Date());
  const verdict = classifyRun(evidence, { now, timeZone: localTimeZone() });
  const recorded = event?.classification;
  if (recorded !== undefined && recorded !== verdict.kind) {
    // The loop saw the agent's stderr too (a usage limit printed only there): its verdict stands.
    return {
      kind: recorded,
      why: event?.classificationWhy ?? `as the loop recorded it (${recorded})`,
      resetAt: recorded === 'usage_limit' ? (limit?.resetAt ?? null) : null,
      hint: null,
      basis: 'log and events.jsonl',
    };
  }
  return {
    kind: verdict.kind,
    why: verdict.why,
    resetAt: verdict.kind === 'usage_limit' ? (verdict.limit.resetAt?.toISOString() ?? null) : null,
    hint: verdict.kind === 'fatal' ? verdict.hint : null,
    basis: event === undefined ? 'log only' : 'log and events.jsonl',
  };
}

/**
 * The iteration_finished event of this log's iteration and attempt, if the loop recorded one,
 * and the usage_limit event that went with it.
 */
async function eventsFor(
  file: string,
): Promise<{ event: FinishedEvent | undefined; limit: UsageLimitEvent | undefined }> {
  const match = /^iteration-(\d+)-attempt-(\d+)\.jsonl$/.exec(basename(file));
  if (match === null) return { event: undefined, limit: undefined };
  const [iteration, attempt] = [Number(match[1]), Number(match[2])];
  const events = (await readEvents(dirname(dirname(file))).catch(() => []))
    .map((value) => parseEvent(value))
    .reverse();
  const of = (event: { iteration: number; attempt: number }, attempts: number[]): boolean =>
    event.iteration === iteration && attempts.includes(event.attempt);
  return {
    event: events.find(
      (each): each is FinishedEvent => each?.type === 'iteration_finished' && of(each, [attempt]),
    ),
    // Recorded as the limit the next attempt waits for (or this one's, when it ends the run).
    limit: events.find(
      (each): each is UsageLimitEvent =>
        each?.type === 'usage_limit' && of(each, [attempt, attempt + 1]),
    ),
  };
}
