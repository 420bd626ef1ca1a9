import type { RunState } from '../../core/events.js';
import type { MonitorEvent, SequencedEvent } from '../events.js';
import { describeEvent, type EventLine } from './describe.js';
import { reduceSafety, type SafetyView } from './safety.js';
import { addTokens, NO_TOKENS, tokensOf, type Tokens } from './tokens.js';

export { totalTokens, type Tokens } from './tokens.js';

/**
 * What every monitor shows, as a pure function of the events so far: the TUI and the web
 * dashboard both fold events.jsonl through `reduceView`, and derive anything that depends on the
 * clock (elapsed time, countdowns, calls this hour) at render time, so the reducer stays pure and
 * testable without a clock.
 */

export interface IterationRow {
  iteration: number;
  attempt: number;
  storyId: string;
  storyTitle: string;
  model?: string;
  startedAt: string;
  finishedAt?: string;
  outcome?: string;
  detail?: string;
  durationMs?: number;
  costUsd?: number;
  tokens?: Tokens;
}

export interface StoryRow {
  id: string;
  title: string;
  /** Iterations (attempts included) spent on it. */
  attempts: number;
  durationMs: number;
  costUsd: number;
  tokens: Tokens;
  lastOutcome?: string;
  passing: boolean;
}

export interface TimedLine extends EventLine {
  at: string;
}

export interface MonitorView {
  /** Sequence number of the last event folded in (0: none). */
  seq: number;
  /** NEW until the first run_started; ORPHANED only as liveness.ts shows a dead run. */
  state: RunState | 'NEW' | 'ORPHANED';
  feature?: string;
  iteration: number;
  maxIterations: number;
  startedAt?: string;
  finishedAt?: string;
  exitReason?: string;
  current?: IterationRow;
  storiesPassing: number;
  storiesTotal: number;
  /** Cost of the loop so far (earlier runs included, as status.json counts it) and its tokens. */
  costUsd: number;
  tokens: Tokens;
  stories: StoryRow[];
  /** Finished and running iterations, oldest first; the oldest are dropped past MAX_ITERATIONS. */
  iterations: IterationRow[];
  tools: TimedLine[];
  recent: TimedLine[];
  /** Start times of agent calls within the last hour (pruned by event time). */
  callTimes: string[];
  safety: SafetyView;
  updatedAt?: string;
}

export const MAX_ITERATIONS = 500;
export const MAX_RECENT = 200;
export const MAX_TOOLS = 8;
const HOUR_MS = 3_600_000;

export function initialView(): MonitorView {
  return {
    seq: 0,
    state: 'NEW',
    iteration: 0,
    maxIterations: 0,
    storiesPassing: 0,
    storiesTotal: 0,
    costUsd: 0,
    tokens: NO_TOKENS,
    stories: [],
    iterations: [],
    tools: [],
    recent: [],
    callTimes: [],
    safety: {},
  };
}

export function reduceView(
  view: MonitorView,
  event: MonitorEvent,
  seq = view.seq + 1,
): MonitorView {
  const line = describeEvent(event);
  const base: MonitorView = {
    ...view,
    seq,
    updatedAt: event.at,
    // Tool calls have their own list: a busy agent would otherwise push everything else out.
    recent:
      event.type === 'agent_tool_use'
        ? view.recent
        : capped([...view.recent, { ...line, at: event.at }], MAX_RECENT),
  };
  switch (event.type) {
    case 'run_started':
      return {
        ...base,
        state: 'RUNNING',
        feature: event.feature,
        // The loop's count as the run starts, as status.json has it: a new run after a finished
        // one goes on from its numbers ("3/23"), it does not start at 0.
        iteration: event.iteration,
        maxIterations: event.maxIterations,
        startedAt: event.at,
        finishedAt: undefined,
        exitReason: undefined,
        current: undefined,
        storiesPassing: event.storiesPassing,
        storiesTotal: event.storiesTotal,
        costUsd: event.costUsd,
        tokens: event.tokens === undefined ? view.tokens : (tokensOf(event.tokens) ?? view.tokens),
        safety: reduceSafety(view.safety, event),
      };
    case 'iteration_started': {
      const row: IterationRow = {
        iteration: event.iteration,
        attempt: event.attempt,
        storyId: event.story.id,
        storyTitle: event.story.title,
        ...(event.model === undefined ? {} : { model: event.model }),
        startedAt: event.at,
      };
      const cutoff = Date.parse(event.at) - HOUR_MS;
      return {
        ...base,
        iteration: event.iteration,
        current: row,
        iterations: capped([...view.iterations, row], MAX_ITERATIONS),
        stories: upsertStory(view.stories, event.story.id, event.story.title, (story) => story),
        callTimes: [...view.callTimes.filter((at) => Date.parse(at) > cutoff), event.at],
      };
    }
    case 'agent_tool_use':
      return { ...base, tools: capped([...view.tools, { ...line, at: event.at }], MAX_TOOLS) };
    case 'agent_started': {
      // The model the agent really runs; ralph may have asked for none (the agent's default).
      const model = event.model;
      if (model === undefined || view.current === undefined) return base;
      const current = { ...view.current, model };
      return {
        ...base,
        current,
        iterations: view.iterations.map((row) => (row === view.current ? current : row)),
      };
    }
    case 'iteration_finished': {
      const tokens = tokensOf(event.usage);
      const cost = event.costUsd ?? 0;
      const finished: Partial<IterationRow> = {
        finishedAt: event.at,
        outcome: event.outcome,
        detail: event.detail,
        durationMs: event.durationMs,
        ...(event.costUsd === undefined ? {} : { costUsd: event.costUsd }),
        ...(tokens === undefined ? {} : { tokens }),
      };
      const matches = (row: IterationRow): boolean =>
        row.iteration === event.iteration && row.attempt === event.attempt;
      const known = view.iterations.some(matches);
      const row: IterationRow = {
        iteration: event.iteration,
        attempt: event.attempt,
        storyId: event.story.id,
        storyTitle: event.story.title,
        startedAt: new Date(Date.parse(event.at) - event.durationMs).toISOString(),
        ...finished,
      };
      const passingNow = new Set(Array.isArray(event.newlyPassing) ? event.newlyPassing : []);
      // The loop's own totals (storySpend, runSpend) win when it reports them: they count what
      // the events of this file cannot (runs before it was written, attempts it lost).
      const storySpend = event.storySpend;
      let stories = upsertStory(view.stories, event.story.id, event.story.title, (story) => ({
        ...story,
        attempts: story.attempts + 1,
        durationMs: story.durationMs + event.durationMs,
        costUsd: storySpend?.costUsd ?? story.costUsd + cost,
        tokens: tokensOf(storySpend?.tokens) ?? addTokens(story.tokens, tokens),
        lastOutcome: event.outcome,
      }));
      stories = stories.map((story) =>
        passingNow.has(story.id) ? { ...story, passing: true } : story,
      );
      return {
        ...base,
        iterations: known
          ? view.iterations.map((each) => (matches(each) ? { ...each, ...finished } : each))
          : capped([...view.iterations, row], MAX_ITERATIONS),
        current: undefined,
        storiesPassing: event.storiesPassing,
        storiesTotal: event.storiesTotal,
        costUsd: event.runSpend?.costUsd ?? view.costUsd + cost,
        tokens: tokensOf(event.runSpend?.tokens) ?? addTokens(view.tokens, tokens),
        stories,
        safety: reduceSafety(view.safety, event),
      };
    }
    case 'run_finished':
      return {
        ...base,
        state: event.state,
        finishedAt: event.at,
        exitReason: event.reason,
        current: undefined,
        storiesPassing: event.storiesPassing,
        storiesTotal: event.storiesTotal,
        costUsd: event.costUsd,
        tokens: tokensOf(event.tokens) ?? view.tokens,
        safety: reduceSafety(view.safety, event),
      };
    case 'breaker_changed':
    case 'wait_started':
    case 'wait_progress':
    case 'wait_finished':
    case 'usage_limit':
    case 'budget_exceeded':
    case 'agent_retry':
    case 'usage_windows':
      return { ...base, safety: reduceSafety(view.safety, event) };
    default:
      // Agent text, warnings, unknown and future types: a line in the recent pane is all.
      return base;
  }
}

/** Folds a batch (as followEvents delivers them) into the view. */
export function reduceAll(view: MonitorView, events: readonly SequencedEvent[]): MonitorView {
  let next = view;
  for (const { seq, event } of events) next = reduceView(next, event, seq);
  return next;
}

function upsertStory(
  stories: StoryRow[],
  id: string,
  title: string,
  change: (story: StoryRow) => StoryRow,
): StoryRow[] {
  const index = stories.findIndex((story) => story.id === id);
  if (index === -1) {
    const fresh: StoryRow = {
      id,
      title,
      attempts: 0,
      durationMs: 0,
      costUsd: 0,
      tokens: NO_TOKENS,
      passing: false,
    };
    return [...stories, change(fresh)];
  }
  return stories.map((story, i) => (i === index ? change({ ...story, title }) : story));
}

function capped<T>(items: T[], max: number): T[] {
  return items.length > max ? items.slice(items.length - max) : items;
}
