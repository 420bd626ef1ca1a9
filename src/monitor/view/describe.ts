import type { MonitorEvent } from '../events.js';
import { retryText, windowLines } from './usage-text.js';

/**
 * One event as a line for a person, shared by `ralph attach`, the TUI's recent-events pane and
 * the web page, so all three read the same. `kind` lets each view pick its own colour or mark.
 */

export type LineKind = 'run' | 'iteration' | 'tool' | 'text' | 'good' | 'bad' | 'warn' | 'other';

export interface EventLine {
  kind: LineKind;
  text: string;
}

/** `textMax`: how much of the agent's messages to keep (attach shows more than a pane can). */
export function describeEvent(event: MonitorEvent, textMax = 200): EventLine {
  switch (event.type) {
    case 'run_started':
      return {
        kind: 'run',
        text: `run started: ${event.feature}, ${event.storiesPassing}/${event.storiesTotal} passing, up to ${event.maxIterations} iterations${
          event.resumedAfterIteration > 0
            ? ` (resuming after iteration ${event.resumedAfterIteration})`
            : ''
        }`,
      };
    case 'iteration_started':
      return {
        kind: 'iteration',
        text: `▶ iteration ${event.iteration}${event.attempt > 1 ? ` attempt ${event.attempt}` : ''}: ${event.story.id} ${event.story.title}${
          event.model === undefined ? '' : ` [${event.model}]`
        }`,
      };
    case 'agent_started':
      return {
        kind: 'other',
        text: `agent started${event.model === undefined ? '' : ` [${event.model}]`}${
          event.sessionId === undefined ? '' : `, session ${event.sessionId}`
        }`,
      };
    case 'agent_tool_use':
      return { kind: 'tool', text: `· ${event.name} ${oneLine(event.summary, 200)}` };
    case 'agent_text':
      return { kind: 'text', text: `“${oneLine(event.text, textMax)}”` };
    case 'iteration_finished': {
      const good = event.outcome === 'progress' || event.outcome === 'complete';
      const cost = event.costUsd === undefined ? '' : `, ${money(event.costUsd)}`;
      return {
        kind: good ? 'good' : 'bad',
        text: `${good ? '✓' : '✗'} iteration ${event.iteration} ${event.outcome}: ${oneLine(event.detail, 160)} (${seconds(event.durationMs)}${cost}) — ${event.storiesPassing}/${event.storiesTotal} passing`,
      };
    }
    case 'breaker_changed':
      return {
        kind: event.to === 'OPEN' ? 'bad' : event.to === 'CLOSED' ? 'good' : 'warn',
        text: `⚡ circuit breaker ${event.from} → ${event.to}: ${oneLine(event.reason, 200)}`,
      };
    case 'wait_started':
      return {
        kind: 'warn',
        text: `⏸ waiting ${duration(event.durationMs)} for the ${event.reason.replace('_', ' ')}: ${oneLine(event.detail, 160)}`,
      };
    case 'wait_progress':
      return {
        kind: 'other',
        text: `⏸ ${duration(event.remainingMs)} left (${event.reason.replace('_', ' ')})`,
      };
    case 'wait_finished':
      return {
        kind: 'other',
        text: `⏵ ${event.reason.replace('_', ' ')} wait ${event.interrupted ? 'interrupted' : 'over'}`,
      };
    case 'usage_limit':
      return {
        kind: 'warn',
        text: `⚠ usage limit: ${oneLine(event.message, 160)}${
          event.resetAt === undefined ? '' : ` (resets ${clockTime(event.resetAt)})`
        } → ${event.action}`,
      };
    case 'budget_exceeded':
      return { kind: 'bad', text: `⚠ budget: ${oneLine(event.message, 200)}` };
    case 'task_list_restored':
      return { kind: 'warn', text: `⚠ task list restored: ${event.problems.join('; ')}` };
    case 'complete_not_believed':
      return {
        kind: 'warn',
        text: `⚠ COMPLETE not believed: ${event.openStories.join(', ')} still open`,
      };
    case 'story_rejected':
      return {
        kind: 'bad',
        text: `✗ ${event.story.id} rejected by ralph: ${oneLine(event.reason, 200)}`,
      };
    case 'story_verified':
      return {
        kind: 'good',
        text: `✓ ${event.story.id} verified by ralph (${event.checks.length} check${event.checks.length === 1 ? '' : 's'})`,
      };
    case 'agent_retry':
      return { kind: 'warn', text: `↻ Claude Code is ${retryText(event)}` };
    case 'usage_windows':
      return {
        kind: 'other',
        text: `usage: ${windowLines(event.windows, new Date(event.at), event.pace).join('; ') || 'no window open'}`,
      };
    case 'warning':
      return { kind: 'warn', text: `⚠ ${oneLine(event.message, 200)}` };
    case 'run_finished':
      return {
        kind: event.state === 'COMPLETE' ? 'good' : event.state === 'PAUSED' ? 'run' : 'bad',
        text: `run ${event.state}: ${event.reason} — ${event.iterations} iterations, ${event.storiesPassing}/${event.storiesTotal} passing, ${money(event.costUsd)}`,
      };
    case 'unknown':
      return {
        kind: /warn|error|open|limit|budget|wait/i.test(event.eventType) ? 'warn' : 'other',
        text: unknownLine(event.eventType, event.raw),
      };
  }
}

/** An event type this version does not know: its own message if it has one, else its fields. */
function unknownLine(type: string, raw: Record<string, unknown>): string {
  for (const key of ['message', 'reason', 'detail']) {
    const value = raw[key];
    if (typeof value === 'string' && value !== '') return `${type}: ${oneLine(value, 200)}`;
  }
  const fields = Object.entries(raw)
    .filter(([key, value]) => key !== 'type' && key !== 'at' && isScalar(value))
    .map(([key, value]) => `${key}=${String(value)}`);
  return oneLine(`${type}${fields.length > 0 ? ` ${fields.join(' ')}` : ''}`, 200);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function money(usd: number): string {
  return `$${usd.toFixed(usd >= 100 ? 0 : usd >= 1 ? 2 : 4)}`;
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** 75 s → "1m15s", 3700 s → "1h01m": compact enough for a status line. */
export function duration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** 1234567 → "1.2M", 5300 → "5.3k". */
export function tokens(count: number): string {
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(1)}M`;
  if (count >= 1_000) return `${(count / 1_000).toFixed(1)}k`;
  return String(count);
}

/** HH:MM:SS of an ISO time, in local time: what a person compares with their clock. */
export function clockTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '--:--:--';
  return date.toTimeString().slice(0, 8);
}
