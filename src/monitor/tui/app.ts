import { safeForTerminal } from '../../util/control-chars.js';
import { Box, Text } from 'ink';
import { createElement as h, type ReactNode } from 'react';
import { derive } from '../view/derive.js';
import {
  clockTime,
  duration,
  money,
  tokens as shortTokens,
  type LineKind,
} from '../view/describe.js';
import { totalTokens, type MonitorView } from '../view/reducer.js';
import { windowLines } from '../view/usage-text.js';

/**
 * The monitor screen: a pure function of the view, the time and the terminal size (no hooks),
 * so every frame can be pinned in a test. Written with createElement rather than JSX to keep
 * the build plain `tsc` over .ts files. Every line is cut to the width, never wrapped, so the
 * layout holds at 80×24; the recent-events pane takes whatever height is left.
 */

export interface MonitorAppProps {
  view: MonitorView;
  now: number;
  width: number;
  height: number;
  /** false under NO_COLOR (or when stdout is not a colour terminal). */
  color: boolean;
  /** The loop directory as a person would type it. */
  name: string;
}

type Color = 'green' | 'yellow' | 'red' | 'cyan' | 'gray' | 'magenta';

const STATE_COLOR: Record<string, Color> = {
  RUNNING: 'green',
  COMPLETE: 'green',
  PAUSED: 'yellow',
  REACHED_LIMIT: 'yellow',
  ERROR: 'red',
  ORPHANED: 'red',
  NEW: 'gray',
};
const KIND_COLOR: Record<LineKind, Color | undefined> = {
  run: 'cyan',
  iteration: 'magenta',
  tool: undefined,
  text: 'gray',
  good: 'green',
  bad: 'red',
  warn: 'yellow',
  other: undefined,
};
const FIXED_LINES = 11; // 8 status lines, 2 pane titles, the footer
const TOOL_LINES = 4;

export function MonitorApp(props: MonitorAppProps): ReactNode {
  const { now, width, color } = props;
  // Agent text, titles and ids reach the terminal only as terminalText shows them.
  const view = safeForTerminal(props.view);
  const d = derive(view, now);
  const paint = (text: string, tint?: Color, bold = false): ReactNode =>
    h(Text, color && tint !== undefined ? { color: tint, bold } : { bold: color && bold }, text);
  const line = (key: string, ...parts: ReactNode[]): ReactNode =>
    h(Box, { key, width, height: 1 }, h(Text, { wrap: 'truncate-end' }, ...parts));

  const current = view.current;
  const story = current ?? d.lastFinished;
  const lastCost = d.lastFinished?.costUsd;
  const lastTokens = d.lastFinished?.tokens;
  const storyRow = d.currentStory ?? view.stories.find((each) => each.id === story?.storyId);
  const breaker = view.safety.breaker;
  const limit = d.callsLimit === undefined ? '' : `/${d.callsLimit}`;
  const free = d.callsFreeInMs === undefined ? '' : ` (next frees in ${duration(d.callsFreeInMs)})`;
  const waitText =
    d.waitLeftMs === undefined
      ? view.safety.retry?.text
      : `waiting: ${d.waitReason ?? 'limit'}, resumes in ${duration(d.waitLeftMs)}`;
  const usage = view.safety.usage;
  const usageText =
    usage === undefined ? [] : windowLines(usage.windows, new Date(now), usage.pace);

  const tools = view.tools.slice(-TOOL_LINES);
  const recentRows = Math.max(1, props.height - FIXED_LINES - TOOL_LINES);
  const recent = view.recent.slice(-recentRows);

  return h(
    Box,
    { flexDirection: 'column', width, height: props.height },
    line(
      'head',
      paint(`ralph monitor · ${view.feature ?? props.name}`, 'cyan', true),
      '  ',
      paint(view.state, STATE_COLOR[view.state], true),
      view.updatedAt === undefined ? '' : `  updated ${clockTime(view.updatedAt)}`,
    ),
    line(
      'iter',
      `Iteration ${view.iteration}/${view.maxIterations || '?'}`,
      story === undefined ? '' : ` · ${story.storyId} ${story.storyTitle}`,
    ),
    line(
      'time',
      `Model ${current?.model ?? story?.model ?? '-'} · elapsed ${
        d.elapsedMs === undefined ? '-' : duration(d.elapsedMs)
      } · iteration ${d.iterationMs === undefined ? '-' : duration(d.iterationMs)} · last ${
        d.lastFinished?.durationMs === undefined ? '-' : duration(d.lastFinished.durationMs)
      }`,
    ),
    line(
      'bar',
      'Stories ',
      paint(bar(view.storiesPassing, view.storiesTotal, 20), 'green'),
      ` ${view.storiesPassing}/${view.storiesTotal} passing`,
    ),
    line(
      'calls',
      `Calls ${d.callsThisHour}${limit} this hour${free} · breaker `,
      paint(breaker?.state ?? 'CLOSED', breaker?.state === 'OPEN' ? 'red' : undefined),
      breaker?.noProgress === undefined || breaker.noProgressLimit === undefined
        ? ''
        : ` (no progress ${breaker.noProgress}/${breaker.noProgressLimit})`,
    ),
    line('usage', `Usage ${usageText.length === 0 ? '-' : usageText.join(' · ')}`),
    line(
      'cost',
      `Cost ${money(view.costUsd)} run · ${money(storyRow?.costUsd ?? 0)} story · ${
        lastCost === undefined ? '-' : money(lastCost)
      } last iteration`,
    ),
    line(
      'tokens',
      waitText === undefined ? '' : paint(`${waitText} · `, 'yellow', true),
      `Tokens ${shortTokens(totalTokens(view.tokens))} run · ${
        storyRow === undefined ? '-' : shortTokens(totalTokens(storyRow.tokens))
      } story · ${lastTokens === undefined ? '-' : shortTokens(totalTokens(lastTokens))} last iteration`,
    ),
    line('tools-title', paint('Last tool calls', undefined, true)),
    ...Array.from({ length: TOOL_LINES }, (_, i) => {
      const tool = tools[i];
      return line(`tool-${i}`, tool === undefined ? '' : `${clockTime(tool.at)} ${tool.text}`);
    }),
    line('recent-title', paint('Recent events', undefined, true)),
    ...Array.from({ length: recentRows }, (_, i) => {
      const entry = recent[i];
      return line(
        `recent-${i}`,
        entry === undefined ? '' : `${clockTime(entry.at)} `,
        entry === undefined ? '' : paint(entry.text, KIND_COLOR[entry.kind]),
      );
    }),
    line('foot', paint(`q quit · ${props.name}`, 'gray')),
  );
}

/** `[██████░░░░]`: passing out of total, in `size` cells. */
export function bar(passing: number, total: number, size: number): string {
  const filled = total <= 0 ? 0 : Math.round((Math.min(passing, total) / total) * size);
  return `[${'█'.repeat(filled)}${'░'.repeat(size - filled)}]`;
}
