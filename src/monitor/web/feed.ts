import { safeForTerminal } from '../../util/control-chars.js';
import { readTaskListFile } from '../../plan/read.js';
import { latestVerifications, readEvidence } from '../../state/evidence-log.js';
import { findTaskListFile } from '../../state/paths.js';
import { countEvents, followEvents } from '../event-stream.js';
import { eventTypeOf, type SequencedEvent } from '../events.js';
import { derive, type Derived } from '../view/derive.js';
import { describeEvent, type EventLine } from '../view/describe.js';
import { watchLiveness, withLiveness } from '../liveness.js';
import { initialView, reduceAll, type IterationRow, type MonitorView } from '../view/reducer.js';
import { verificationText } from '../view/verification.js';
import { windowLines } from '../view/usage-text.js';
import { timelineSvg } from './chart.js';

/**
 * One followed loop directory for the web dashboard: its events (all kept, so a client that
 * reconnects with Last-Event-ID gets exactly what it missed), the reduced view, and the SSE
 * clients watching it. Events go out the moment they are read; the view (numbers, story
 * table, chart) goes out at most every VIEW_INTERVAL_MS, since a chatty agent writes many
 * events a second and each view is a few kilobytes.
 */

export interface SseClient {
  write(chunk: string): void;
}

export interface StoryInfo {
  id: string;
  title: string;
  passes: boolean;
  /** Parked: ralph gave up on it (or a person set `blocked`). */
  parked: boolean;
  /** How ralph verified it, or why it refused it ('' when nothing happened yet). */
  verification: string;
}

export interface Snapshot {
  id: string;
  view: Omit<MonitorView, 'recent' | 'tools'>;
  derived: Omit<Derived, 'lastFinished' | 'currentStory'>;
  /** Every story of the task list (the view only knows the ones an iteration touched). */
  taskStories: StoryInfo[] | undefined;
  chart: string;
  /** The usage windows and a Claude Code retry in progress, as lines (usage-text.ts). */
  usage: string[];
}

export interface LoopFeed {
  readonly id: string;
  /** Replays from after `lastEventId` (the tail when undefined), then follows. */
  subscribe(client: SseClient, lastEventId: number | undefined): () => void;
  snapshot(): Snapshot;
  /** Resolves once the events that exist now have been read. */
  ready(): Promise<void>;
  close(): void;
}

export const VIEW_INTERVAL_MS = 200;
/** Events after which the task list is read again (passes may have changed). */
const STORY_EVENTS = new Set([
  'iteration_finished',
  'run_started',
  'run_finished',
  'task_list_restored',
  'story_rejected',
  'story_verified',
]);
/** Events a new client (no Last-Event-ID) gets for its event pane. */
export const NEW_CLIENT_TAIL = 200;

export function createLoopFeed(
  id: string,
  loopDir: string,
  options: {
    logHref: (row: IterationRow) => string;
    now?: () => number;
    pollMs?: number;
    /** ralph's user state dir: only evidence lines ralph sealed are shown. */
    stateDir?: string | undefined;
  },
): LoopFeed {
  const now = options.now ?? Date.now;
  const controller = new AbortController();
  const events: SequencedEvent[] = [];
  const clients = new Set<SseClient>();
  let view = initialView();
  let alive = true;
  let taskStories: StoryInfo[] | undefined;
  let viewTimer: NodeJS.Timeout | undefined;
  let markReady: () => void = () => undefined;
  const readyPromise = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  const readStories = async (): Promise<void> => {
    const found = await findTaskListFile(loopDir).catch(() => undefined);
    if (found === undefined) return;
    const document = await readTaskListFile(found.path).catch(() => undefined);
    if (document === undefined) return; // mid-write by the agent: the next event reads it again
    const latest = latestVerifications(
      await readEvidence(loopDir, options.stateDir).catch(() => []),
    );
    taskStories = document.taskList.stories.map((story) => ({
      id: story.id,
      title: story.title,
      passes: story.passes,
      parked: story.blocked !== undefined,
      verification: verificationText(
        latest.find((each) => each.storyId === story.id),
        story,
      ),
    }));
  };

  const snapshot = (): Snapshot => {
    // The page has its own event list and does not need the terminal's panes.
    const seen = withLiveness(view, alive);
    const shown: Partial<MonitorView> = { ...seen };
    delete shown.recent;
    delete shown.tools;
    const derived: Partial<Derived> = derive(seen, now());
    delete derived.lastFinished;
    delete derived.currentStory;
    // Agent text and task-list titles with their control characters and bidi overrides shown as
    // escapes, as in the terminal views (util/control-chars.ts); the page sets textContent only.
    return {
      id,
      view: safeForTerminal(shown) as Snapshot['view'],
      derived: safeForTerminal(derived) as Snapshot['derived'],
      taskStories: safeForTerminal(taskStories),
      chart: timelineSvg(view.iterations, { logHref: options.logHref, now: now() }),
      usage: [
        ...(seen.safety.retry === undefined ? [] : [seen.safety.retry.text]),
        ...(seen.safety.usage === undefined
          ? []
          : windowLines(seen.safety.usage.windows, new Date(now()), seen.safety.usage.pace)),
      ],
    };
  };
  const broadcastView = (): void => {
    viewTimer = undefined;
    const message = `event: view\ndata: ${JSON.stringify(snapshot())}\n\n`;
    for (const client of clients) client.write(message);
  };
  const scheduleView = (): void => {
    viewTimer ??= setTimeout(broadcastView, VIEW_INTERVAL_MS);
  };

  const start = async (): Promise<void> => {
    await readStories();
    // Ready once what the file holds now has been read (the first view is then complete).
    const existing = await countEvents(loopDir);
    if (existing === 0) markReady();
    await followEvents(loopDir, {
      signal: controller.signal,
      ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      onEvents: async (batch) => {
        events.push(...batch);
        view = reduceAll(view, batch);
        const touchesStories = batch.some(({ event }) => STORY_EVENTS.has(event.type));
        if (touchesStories) await readStories();
        if (clients.size > 0) {
          const message = batch.map(eventMessage).join('');
          for (const client of clients) client.write(message);
          scheduleView();
        }
        if ((batch.at(-1)?.seq ?? 0) >= existing) markReady();
      },
    });
  };
  const stopLiveness = watchLiveness(loopDir, (now) => {
    alive = now;
    if (clients.size > 0) scheduleView();
  });
  start().catch(() => {
    markReady(); // events.jsonl unreadable: the page shows what there is rather than hang
  });

  return {
    id,
    subscribe(client, lastEventId) {
      const replay =
        lastEventId === undefined
          ? events.slice(-NEW_CLIENT_TAIL)
          : events.filter((item) => item.seq > lastEventId);
      client.write(`retry: 1000\n\n${replay.map(eventMessage).join('')}`);
      client.write(`event: view\ndata: ${JSON.stringify(snapshot())}\n\n`);
      clients.add(client);
      return () => {
        clients.delete(client);
      };
    },
    snapshot,
    ready: () => readyPromise,
    close() {
      controller.abort();
      stopLiveness();
      if (viewTimer !== undefined) clearTimeout(viewTimer);
      clients.clear();
    },
  };
}

/** One event as an SSE message: its sequence number as the id, the event and its line. */
function eventMessage({ seq, event }: SequencedEvent): string {
  const line: EventLine = safeForTerminal(describeEvent(event));
  const payload = {
    seq,
    at: event.at,
    type: eventTypeOf(event),
    ...line,
  };
  return `id: ${seq}\nevent: loop\ndata: ${JSON.stringify(payload)}\n\n`;
}
