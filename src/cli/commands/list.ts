import { Command } from '@commander-js/extra-typings';
import { resolve } from 'node:path';
import { listLoops, type ListedState, type LoopListing } from '../../monitor/loops.js';
import { money } from '../../monitor/view/describe.js';
import { readSafety } from '../../safety/store.js';
import { findGitRepo } from '../../state/git.js';
import { terminalText } from '../../util/control-chars.js';
import {
  colored,
  writeLine,
  writeStyledLine,
  type CliContext,
  type SetExitCode,
} from '../context.js';
import { reportError } from '../exit.js';
import { useColor, writeJson } from '../output.js';
import { shownPath } from './watch-target.js';

const STATE_COLORS: Record<ListedState, number | undefined> = {
  RUNNING: 32,
  COMPLETE: 32,
  PAUSED: 33,
  REACHED_LIMIT: 33,
  ERROR: 31,
  ORPHANED: 31,
  NEW: undefined,
};

export function listCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('list')
    .description(
      'List the loop directories of this repository and the state of each: RUNNING (its process\n' +
        'is alive), PAUSED, COMPLETE, REACHED_LIMIT, ERROR, ORPHANED (status.json says RUNNING but\n' +
        'its process is gone: `ralph run DIR` resumes it), or NEW (never run). Loop directories\n' +
        'are the folders under .ralph/ and .claude/data/ralph-loops/ that hold a task list or\n' +
        'run state, plus any DIR named here.',
    )
    .argument('[dirs...]', 'more loop directories to include')
    .option('--json', 'print {loops: [...]} as JSON')
    .action(async (dirs, options) => {
      const json = options.json === true;
      try {
        const repo = await findGitRepo(context.cwd).catch(() => undefined);
        const loops = await withLoopCosts(
          await listLoops({
            repoRoot: repo?.root,
            dirs: dirs.map((dir) => resolve(context.cwd, dir)),
          }),
        );
        if (json) {
          writeJson(context, { loops });
          return;
        }
        printLoops(loops, context);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

type ListedLoop = LoopListing & { totalCostUsd?: number };

/**
 * What each loop has cost in all its runs: the per-story spend safety.json keeps across runs,
 * the figure `ralph status` shows as "all runs". status.json's costUsd is the latest run's
 * alone, and a re-run that found nothing to do showed a loop that cost $0.04 as $0.0000.
 */
async function withLoopCosts(loops: readonly LoopListing[]): Promise<ListedLoop[]> {
  const now = new Date();
  return Promise.all(
    loops.map(async (loop) => {
      const safety = await readSafety(loop.dir, now).catch(() => undefined);
      const spent = Object.values(safety?.budget.stories ?? {});
      const total =
        spent.length === 0 ? loop.costUsd : spent.reduce((sum, story) => sum + story.costUsd, 0);
      return total === undefined ? { ...loop } : { ...loop, totalCostUsd: total };
    }),
  );
}

function printLoops(loops: readonly ListedLoop[], context: CliContext): void {
  if (loops.length === 0) {
    writeLine(
      context.stdout,
      'No loop directories in this repository. Create one with `ralph init`.',
    );
    return;
  }
  const color = useColor(context);
  const rows = loops.map((loop) => [
    loop.state,
    shownPath(context.cwd, loop.dir),
    loop.iteration === undefined ? '-' : `${loop.iteration}/${loop.maxIterations ?? '?'}`,
    loop.storiesTotal === undefined ? '-' : `${loop.storiesPassing ?? 0}/${loop.storiesTotal}`,
    loop.totalCostUsd === undefined ? '-' : money(loop.totalCostUsd),
    loop.pid === undefined ? '-' : String(loop.pid),
    loop.updatedAt ?? '-',
    loop.problem ?? orphanNote(loop),
  ]);
  const header = ['STATE', 'LOOP', 'ITER', 'STORIES', 'COST', 'PID', 'UPDATED', ''];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  for (const [index, row] of [header, ...rows].entries()) {
    const text = row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
    const code = index === 0 ? undefined : STATE_COLORS[(row[0] ?? 'NEW') as ListedState];
    writeStyledLine(
      context.stdout,
      `${colored(text.slice(0, widths[0]), code, color)}${terminalText(text.slice(widths[0]))}`,
    );
  }
}

function orphanNote(loop: LoopListing): string {
  if (loop.state !== 'ORPHANED') return '';
  const reused = loop.pidReused === true ? ' (its pid now runs another program)' : '';
  return `process gone${reused}: \`ralph run\` resumes`;
}
