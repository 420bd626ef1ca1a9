import type { IterationRow } from '../view/reducer.js';

/**
 * The iteration timeline as inline SVG (no chart library): one bar per iteration, its height
 * the duration, its colour the result, a dot for its cost on the right-hand scale. Each bar
 * links to that iteration's log. Built on the server from the view, so the page only inserts it.
 */

export interface ChartOptions {
  /** Builds the link of an iteration's log. */
  logHref: (row: IterationRow) => string;
  /** Epoch ms, for the running iteration's bar. */
  now: number;
  /** Most bars drawn: the latest ones. */
  maxBars?: number;
}

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 44, right: 52, top: 12, bottom: 24 };
/** An instant iteration still gets a bar one can see and click. */
const MIN_BAR = 3;

export const OUTCOME_COLORS: Record<string, string> = {
  progress: '#2e9d4f',
  complete: '#1f7a3a',
  no_progress: '#9aa3ad',
  error: '#d0454c',
  timeout: '#e07b24',
  canceled: '#c9a227',
  running: '#3b82f6',
};

export function timelineSvg(rows: readonly IterationRow[], options: ChartOptions): string {
  const shown = rows.slice(-(options.maxBars ?? 60));
  if (shown.length === 0) {
    return `<svg class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="no iterations yet"><text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" fill="#888">no iterations yet</text></svg>`;
  }
  const durations = shown.map((row) => durationOf(row, options.now));
  const maxMs = Math.max(1000, ...durations);
  const maxCost = Math.max(0.0001, ...shown.map((row) => row.costUsd ?? 0));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / shown.length;
  const barW = Math.max(2, Math.min(40, slot * 0.7));
  const y = (fraction: number): number => PAD.top + plotH * (1 - fraction);

  const bars = shown.map((row, i) => {
    const ms = durations[i] ?? 0;
    const x = PAD.left + slot * i + (slot - barW) / 2;
    const top = Math.min(y(ms / maxMs), y(0) - MIN_BAR);
    const outcome = row.outcome ?? 'running';
    const color = OUTCOME_COLORS[outcome] ?? '#6b7280';
    const cost = row.costUsd === undefined ? 'no cost' : `$${row.costUsd.toFixed(4)}`;
    const label = `iteration ${row.iteration}${row.attempt > 1 ? ` attempt ${row.attempt}` : ''}: ${row.storyId}, ${outcome}, ${(ms / 1000).toFixed(1)} s, ${cost}`;
    const dot =
      row.costUsd === undefined
        ? ''
        : `<circle cx="${fmt(x + barW / 2)}" cy="${fmt(y(row.costUsd / maxCost))}" r="3.5" class="cost-dot"/>`;
    const tick =
      shown.length <= 30 || i % Math.ceil(shown.length / 30) === 0
        ? `<text x="${fmt(x + barW / 2)}" y="${HEIGHT - 8}" text-anchor="middle" class="tick">${row.iteration}</text>`
        : '';
    return `<a href="${escapeXml(options.logHref(row))}" class="bar" data-iteration="${row.iteration}" data-attempt="${row.attempt}"><title>${escapeXml(label)}</title><rect x="${fmt(x)}" y="${fmt(top)}" width="${fmt(barW)}" height="${fmt(Math.max(MIN_BAR, y(0) - top))}" fill="${color}" rx="2"/>${dot}</a>${tick}`;
  });

  const axis = [
    `<line x1="${PAD.left}" y1="${y(0)}" x2="${WIDTH - PAD.right}" y2="${y(0)}" class="axis"/>`,
    `<text x="${PAD.left - 6}" y="${PAD.top + 8}" text-anchor="end" class="tick">${(maxMs / 1000).toFixed(0)} s</text>`,
    `<text x="${PAD.left - 6}" y="${y(0)}" text-anchor="end" class="tick">0</text>`,
    `<text x="${WIDTH - PAD.right + 6}" y="${PAD.top + 8}" class="tick cost">$${maxCost.toFixed(maxCost >= 1 ? 2 : 4)}</text>`,
  ];
  return `<svg class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="iteration timeline: duration, result and cost per iteration">${axis.join('')}${bars.join('')}</svg>`;
}

function durationOf(row: IterationRow, now: number): number {
  if (row.durationMs !== undefined) return row.durationMs;
  const started = Date.parse(row.startedAt);
  return Number.isNaN(started) ? 0 : Math.max(0, now - started);
}

function fmt(value: number): string {
  return value.toFixed(1);
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
