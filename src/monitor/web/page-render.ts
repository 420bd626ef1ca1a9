import type { LoopListing } from '../loops.js';
import { money } from '../view/describe.js';
import type { Snapshot } from './feed.js';
import { PAGE_HTML } from './page.js';

/**
 * The dashboard's first HTML, filled in on the server: the loop list, the figures, the chart and
 * the stories are there before any script runs, so the page says something without JavaScript
 * (and before the first SSE message). The script (client.ts) then replaces them live.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function renderPage(
  loops: readonly LoopListing[],
  selectedId: string | undefined,
  snapshot: Snapshot | undefined,
): string {
  let html = PAGE_HTML.replace(
    '<ul id="loops"></ul>',
    `<ul id="loops">${loops.map((loop) => loopItem(loop, loop.id === selectedId)).join('')}</ul>`,
  );
  if (snapshot === undefined) return html;
  const { view } = snapshot;
  const fill = (id: string, text: string): void => {
    html = html.replace(
      new RegExp(`(id="${id}"[^>]*>)[^<]*(<)`),
      (_whole, open: string, close: string) => `${open}${escapeHtml(text)}${close}`,
    );
  };
  fill('feature', view.feature ?? snapshot.id);
  html = html.replace('<span id="stat-state" class="badge">…</span>', stateBadge(view.state));
  fill('stat-iteration', `${view.iteration}/${view.maxIterations || '?'}`);
  fill('stat-stories', `${view.storiesPassing}/${view.storiesTotal}`);
  fill('stat-cost', money(view.costUsd));
  fill('stat-breaker', view.safety.breaker?.state ?? 'CLOSED');
  fill('connection', 'as of page load');
  const percent = view.storiesTotal > 0 ? (100 * view.storiesPassing) / view.storiesTotal : 0;
  html = html.replace(
    '<div id="stat-progress"></div>',
    `<div id="stat-progress" style="width:${percent.toFixed(1)}%"></div>`,
  );
  html = html.replace(
    '<div id="chart" class="chart"></div>',
    `<div id="chart" class="chart">${snapshot.chart}</div>`,
  );
  const stories = snapshot.taskStories ?? [];
  html = html.replace(
    '<table id="stories"><thead><tr><th>Story</th><th>Status</th><th class="num">Attempts</th><th class="num">Time</th><th class="num">Cost</th></tr></thead><tbody></tbody>',
    (whole) =>
      whole.replace(
        '<tbody></tbody>',
        `<tbody>${stories.map((story) => storyRow(story, snapshot)).join('')}</tbody>`,
      ),
  );
  return html;
}

function loopItem(loop: LoopListing, selected: boolean): string {
  const id = escapeHtml(loop.id);
  return `<li><a href="?loop=${encodeURIComponent(loop.id)}"${selected ? ' class="selected"' : ''} data-loop="${id}"><span>${id}</span>${stateBadge(loop.state, false)}</a></li>`;
}

function stateBadge(state: string, withId = true): string {
  const safe = escapeHtml(state);
  return `<span${withId ? ' id="stat-state"' : ''} class="badge state-${safe}">${safe}</span>`;
}

function storyRow(story: NonNullable<Snapshot['taskStories']>[number], snapshot: Snapshot): string {
  const stat = snapshot.view.stories.find((each) => each.id === story.id);
  const working = snapshot.view.current?.storyId;
  const status =
    story.passes || stat?.passing === true
      ? 'passing'
      : story.parked
        ? 'parked'
        : story.id === working
          ? 'working'
          : 'open';
  const cells = [
    `<td><div>${escapeHtml(story.id)}</div><div class="title">${escapeHtml(story.title)}</div><div class="title verification">${escapeHtml(story.verification)}</div></td>`,
    `<td class="${status}">${status}</td>`,
    `<td class="num">${String(stat?.attempts ?? 0)}</td>`,
    `<td class="num">-</td>`,
    `<td class="num">${stat?.costUsd ? money(stat.costUsd) : '-'}</td>`,
  ];
  return `<tr data-story="${escapeHtml(story.id)}">${cells.join('')}</tr>`;
}
