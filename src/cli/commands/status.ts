import { Command } from '@commander-js/extra-typings';
import { relative } from 'node:path';
import { summarise } from '../../plan/order.js';
import { readTaskListFile } from '../../plan/read.js';
import type { Story } from '../../plan/types.js';
import { readLock } from '../../state/lock.js';
import { requireTaskListFile, resolveLoopDir } from '../../state/paths.js';
import { readStatus } from '../../state/status.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { writeJson } from '../output.js';
import { loadCommandConfig } from '../settings.js';
import { printSafety, safetyReport } from './status-safety.js';

export function statusCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('status')
    .description(
      'Show where a loop stands: stories total and passing, the next story (priority, then id,\n' +
        'then file order; stories waiting on dependsOn are skipped), blocked stories, and the\n' +
        "last run's state from status.json, its cost and tokens (per run and per story), the\n" +
        'circuit breaker, and any wait (usage limit, rate limit) with its countdown.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--json', 'print the status as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const config = await loadCommandConfig(context);
        const resolved = await resolveLoopDir({
          dir,
          cwd: context.cwd,
          protectedBranches: config.protectedBranches,
        });
        const found = await requireTaskListFile(resolved.dir);
        const document = await readTaskListFile(found.path);
        const summary = summarise(document.taskList);
        const status = await readStatus(resolved.dir);
        const lock = await readLock(resolved.dir);
        const now = new Date();
        // A broken safety.json must not hide the rest of the status; the next run reports it too.
        const safety = await safetyReport(resolved.dir, config, now).catch((error: unknown) => {
          if (error instanceof RalphError) return { error: error.message };
          throw error;
        });
        const report = {
          loopDir: resolved.dir,
          branch: resolved.branch,
          taskList: found.path,
          format: document.taskList.format,
          stories: {
            total: summary.total,
            passing: summary.passing,
            open: summary.total - summary.passing,
          },
          complete: summary.total > 0 && summary.passing === summary.total,
          next: summary.next === undefined ? null : brief(summary.next),
          blocked: summary.blocked.map((story) => ({
            ...brief(story),
            waitingOn: story.dependsOn,
          })),
          lastRun: status ?? null,
          runningPid: lock?.alive === true ? (lock.holder?.pid ?? null) : null,
          safety,
        };
        if (json) {
          writeJson(context, report);
          return;
        }
        const out = context.stdout;
        writeLine(out, `Loop directory: ${relative(context.cwd, resolved.dir) || '.'}/`);
        writeLine(out, `Task list:      ${relative(context.cwd, found.path)} (${report.format})`);
        writeLine(
          out,
          `Stories:        ${summary.passing}/${summary.total} passing${report.complete ? ' — complete' : ''}`,
        );
        const next = summary.next;
        writeLine(
          out,
          `Next story:     ${next === undefined ? '(none)' : `${next.id} ${next.title}`}`,
        );
        for (const story of summary.blocked) {
          writeLine(out, `Blocked:        ${story.id} waits on ${story.dependsOn.join(', ')}`);
        }
        if (status === undefined) {
          writeLine(out, 'Last run:       none yet');
        } else {
          const running = report.runningPid === null ? '' : ` (pid ${report.runningPid})`;
          writeLine(
            out,
            `Last run:       ${status.state}${running}, iteration ${status.iteration}/${status.maxIterations}, updated ${status.updatedAt}`,
          );
          if (status.exitReason !== undefined)
            writeLine(out, `Stopped:        ${status.exitReason}`);
          if (status.hint !== undefined) writeLine(out, `Hint:           ${status.hint}`);
        }
        if ('error' in safety) writeLine(out, `Safety:         ${safety.error}`);
        else printSafety(out, status, safety, now);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

function brief(story: Story): { id: string; title: string; priority: number | null } {
  return { id: story.id, title: story.title, priority: story.priority ?? null };
}
