import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { SessionLoopSummary, StartedSessionLoop } from '../../session-loop/loops.js';
import { sessionLoopPaths } from '../../session-loop/paths.js';
import { projectDirOf } from '../../session-loop/project.js';
import { writeLine, type CliContext } from '../context.js';
import { writeJson } from '../output.js';

/** What `ralph loop start` and `ralph loop list` print. */

export async function reportStarted(
  started: StartedSessionLoop,
  maxIterations: number,
  context: CliContext,
  json: boolean,
): Promise<void> {
  const hookFound = await hookInstalled(context.cwd);
  if (json) {
    writeJson(context, { ...started, maxIterations, hookInstalled: hookFound });
    return;
  }
  const out = context.stdout;
  const show = (path: string) => relative(context.cwd, path) || path;
  writeLine(out, `Started ralph loop ${started.id}`);
  writeLine(out, `  state:   ${show(started.statePath)}`);
  writeLine(out, `  journal: ${show(started.journalPath)}`);
  writeLine(
    out,
    `  limit:   ${maxIterations === 0 ? 'none (the backstop applies)' : `${maxIterations} iterations`}`,
  );
  writeLine(
    out,
    started.completionPromise === null
      ? '  promise: none: the loop ends only at its iteration limit or when cancelled'
      : `  promise: to end the loop, output <promise>${started.completionPromise}</promise>, and only when that is completely true`,
  );
  writeLine(
    out,
    'The next Claude Code session here to stop claims the loop and gets the prompt again.',
  );
  for (const warning of started.warnings) writeLine(context.stderr, `ralph: warning: ${warning}`);
  if (!hookFound)
    writeLine(
      context.stderr,
      'ralph: hint: no ralph Stop hook in .claude/settings*.json: run `ralph setup --stop-hook` (unless you installed the plugin)',
    );
}

async function hookInstalled(cwd: string): Promise<boolean> {
  const { claudeDir } = sessionLoopPaths(await projectDirOf(cwd));
  // The plugin's hooks.json counts too, when it was written to its default folder.
  for (const name of ['settings.local.json', 'settings.json', 'ralph-plugin/hooks/hooks.json']) {
    const text = await readFile(resolve(claudeDir, name), 'utf8').catch(() => '');
    if (text.includes('stop-hook')) return true;
  }
  return false;
}

export function printLoops(loops: readonly SessionLoopSummary[], context: CliContext): void {
  if (loops.length === 0) {
    writeLine(
      context.stdout,
      'No ralph loops in this project. Start one with `ralph loop start` or `ralph loop wizard`.',
    );
    return;
  }
  const rows = loops.map((loop) => [
    loop.id,
    loop.status,
    loop.sessionId?.slice(0, 8) ?? '-',
    loop.iteration === null
      ? '-'
      : `${loop.iteration}/${loop.maxIterations === 0 ? '∞' : String(loop.maxIterations)}`,
    loop.completionPromise ?? '-',
    loop.startedAt ?? '-',
    loop.problem ?? '',
  ]);
  const header = ['ID', 'STATE', 'SESSION', 'ITER', 'PROMISE', 'STARTED', ''];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  for (const row of [header, ...rows]) {
    writeLine(
      context.stdout,
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  }
}
