import * as z from 'zod';
import { loopEventSchema, type LoopEvent } from '../core/events.js';

/**
 * The readers' side of events.jsonl: every line goes through the one LoopEvent schema
 * (core/events.ts) before a view sees it (design.md §5). The file may have been written by an
 * older or newer ralph, so a line whose type this version does not know — or a known type whose
 * fields do not fit — is kept as `unknown` and shown generically, never a crash and never
 * dropped: new event types appear in attach and the monitors before anyone teaches them a nicer
 * rendering.
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

/** One parsed JSON value as an event; undefined when it is not an event at all. */
export function parseEvent(value: unknown): MonitorEvent | undefined {
  const head = envelope.safeParse(value);
  if (!head.success) return undefined;
  const raw = head.data;
  const event = loopEventSchema.safeParse(upgradeOlderEvent(raw));
  if (event.success) return event.data;
  return { type: 'unknown', at: raw.at, eventType: raw.type, raw };
}

/**
 * Fields later versions added as required, filled in for lines older versions wrote:
 * run_started gained `iteration` (the count numbering goes on from), which was then the
 * iteration the run resumed after.
 */
function upgradeOlderEvent(raw: Record<string, unknown>): Record<string, unknown> {
  if (raw.type === 'run_started' && raw.iteration === undefined) {
    return { ...raw, iteration: raw.resumedAfterIteration };
  }
  return raw;
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
