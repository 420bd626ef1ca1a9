import * as z from 'zod';
import type { LoopEvent, LoopEventType } from '../core/events.js';

/**
 * The monitor's side of events.jsonl: every line goes through zod before a view sees it
 * (design.md §5). The file is written by this or another version of ralph, so a line whose type
 * this version does not know — or a known type missing a field the views read — is kept as
 * `unknown` and shown generically, never a crash: new event types (safety, guard) appear in
 * attach and the monitors before anyone teaches them a nicer rendering.
 */

export interface UnknownEvent {
  type: 'unknown';
  at: string;
  /** The type the writer gave it. */
  eventType: string;
  raw: Record<string, unknown>;
}

export type MonitorEvent = LoopEvent | UnknownEvent;

/** An event and its line number in events.jsonl (from 1): the SSE id, stable across restarts. */
export interface SequencedEvent {
  seq: number;
  event: MonitorEvent;
}

const envelope = z.looseObject({ type: z.string().min(1), at: z.string() });
const story = z.looseObject({ id: z.string(), title: z.string() });
const count = z.number();
const maybeNumber = z.number().optional().nullable();
const usage = z
  .looseObject({
    inputTokens: z.number(),
    outputTokens: z.number(),
    cacheReadInputTokens: z.number(),
    cacheCreationInputTokens: z.number(),
  })
  .optional()
  .nullable();

const breaker = z.looseObject({ state: z.string() });
const spend = z.looseObject({ costUsd: z.number(), tokens: usage }).optional();
const text = z.string();

// Only the fields the views read are checked (optional ones when present): a writer may add
// more at any time.
const schemas: Partial<Record<LoopEventType, z.ZodType>> = {
  run_started: z.looseObject({
    feature: text,
    resumedAfterIteration: count,
    maxIterations: count,
    storiesTotal: count,
    storiesPassing: count,
    costUsd: count,
    tokens: usage,
    breaker: breaker.optional(),
    rateLimit: z.looseObject({ callsPerHour: maybeNumber }).optional(),
  }),
  iteration_started: z.looseObject({ iteration: count, attempt: count, story }),
  agent_started: z.looseObject({
    iteration: count,
    attempt: count,
    sessionId: text.optional(),
    model: text.optional(),
  }),
  agent_tool_use: z.looseObject({ iteration: count, name: text, summary: text }),
  agent_text: z.looseObject({ iteration: count, text }),
  iteration_finished: z.looseObject({
    iteration: count,
    attempt: count,
    story,
    outcome: text,
    detail: text,
    storiesPassing: count,
    storiesTotal: count,
    costUsd: maybeNumber,
    usage,
    durationMs: count,
    breaker: breaker.optional(),
    storySpend: spend,
    runSpend: spend,
    callsLastHour: maybeNumber,
  }),
  breaker_changed: z.looseObject({ from: text, to: text, reason: text, breaker }),
  wait_started: z.looseObject({ reason: text, until: text, durationMs: count, detail: text }),
  wait_progress: z.looseObject({ reason: text, until: text, remainingMs: count }),
  wait_finished: z.looseObject({ reason: text, interrupted: z.boolean() }),
  usage_limit: z.looseObject({ message: text, action: text }),
  budget_exceeded: z.looseObject({ message: text }),
  task_list_restored: z.looseObject({ iteration: count, problems: z.array(text) }),
  complete_not_believed: z.looseObject({ iteration: count, openStories: z.array(text) }),
  warning: z.looseObject({ message: text }),
  run_finished: z.looseObject({
    state: text,
    reason: text,
    iterations: count,
    storiesPassing: count,
    storiesTotal: count,
    costUsd: count,
    tokens: usage,
  }),
};

/** One parsed JSON value as an event; undefined when it is not an event at all. */
export function parseEvent(value: unknown): MonitorEvent | undefined {
  const head = envelope.safeParse(value);
  if (!head.success) return undefined;
  const raw = head.data;
  const schema = Object.hasOwn(schemas, raw.type) ? schemas[raw.type as LoopEventType] : undefined;
  if (schema?.safeParse(raw).success === true) {
    // Checked above for every field a view reads; the rest is the writer's business.
    return raw as unknown as LoopEvent;
  }
  return { type: 'unknown', at: raw.at, eventType: raw.type, raw };
}

/** One line of events.jsonl; undefined for a blank, torn or foreign line. */
export function parseEventLine(line: string): MonitorEvent | undefined {
  if (line.trim() === '') return undefined;
  try {
    return parseEvent(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** The type a person should see: the writer's own name for unknown events. */
export function eventTypeOf(event: MonitorEvent): string {
  return event.type === 'unknown' ? event.eventType : event.type;
}
