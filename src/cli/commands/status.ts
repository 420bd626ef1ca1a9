import { Command } from '@commander-js/extra-typings';
import { relative } from 'node:path';
import { summarise } from '../../plan/order.js';
import { readTaskListFile } from '../../plan/read.js';
import type { Story } from '../../plan/types.js';
import { latestVerifications, readEvidenceLog } from '../../state/evidence-log.js';
import { userStateDir } from '../../state/user-state.js';
import { readLock } from '../../state/lock.js';
import { requireTaskListFile } from '../../state/paths.js';
import { readStatus } from '../../state/status.js';
import { RalphError } from '../../util/errors.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { writeJson } from '../output.js';
import { loadCommandLoop } from '../settings.js';
import { printSafety, safetyReport } from './status-safety.js';

export function statusCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('status')
    .description(
      'Show where a loop stands: stories total and passing, the next story (priority, then id,\n' +
        'then file order; stories waiting on dependsOn are skipped), blocked stories, and the\n' +
        "last run's state from status.json, its cost and tokens (per run and per story), the\n" +
        'circuit breaker, any wait (usage limit, rate limit) with its countdown, and when and how\n' +
        'ralph verified each story (`ralph evidence` has the details).',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--json', 'print the status as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const { config, loop: resolved } = await loadCommandLoop(context, dir);
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
        const evidence = await readEvidenceLog(
          resolved.dir,
          userStateDir(context.env, homeDirOf(context)),
        );
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
          verification: verificationOf(
            document.taskList.stories,
            latestVerifications(evidence.entries),
          ),
          evidenceNotByRalph: evidence.notRalphs,
          evidenceIncomplete: evidence.lost ?? null,
          parked: summary.parked.map((story) => ({ ...brief(story), reason: story.blocked })),
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
        for (const story of summary.parked) {
          writeLine(out, `Parked:         ${story.id}: ${story.blocked ?? 'blocked'}`);
        }
        for (const story of summary.blocked) {
          writeLine(out, `Blocked:        ${story.id} waits on ${story.dependsOn.join(', ')}`);
        }
        for (const each of report.verification) {
          writeLine(out, `Verified:       ${verificationLine(each)}`);
        }
        if (evidence.lost !== undefined) {
          writeLine(out, `Evidence:       incomplete: ${evidence.lost}`);
        }
        if (evidence.notRalphs > 0) {
          writeLine(
            out,
            `Evidence:       ${evidence.notRalphs} line(s) not written by ralph (ignored)`,
          );
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

type Verification = ReturnType<typeof latestVerifications>[number];

interface StoryVerificationReport {
  id: string;
  passes: boolean;
  /** pass / fail / unchecked: the latest verification; none: ralph never verified it. */
  verdict: Verification['verdict'] | 'none';
  at: string | null;
  iteration: number | null;
  commit: string | null;
  checks: string[];
}

/** Each story with evidence, and each passing story without: "how do we know it is done?" */
function verificationOf(
  stories: readonly Story[],
  latest: readonly Verification[],
): StoryVerificationReport[] {
  return stories.flatMap((story) => {
    const found = latest.find((each) => each.storyId === story.id);
    if (found === undefined && !story.passes) return [];
    return [
      {
        id: story.id,
        passes: story.passes,
        verdict: found?.verdict ?? 'none',
        at: found?.at ?? null,
        iteration: found?.iteration ?? null,
        commit: found?.commit ?? null,
        checks: (found?.checks ?? [])
          .filter((check) => check.kind !== 'unchecked')
          .map((check) => check.command ?? check.name ?? check.kind),
      },
    ];
  });
}

function verificationLine(each: StoryVerificationReport): string {
  if (each.verdict === 'none') return `${each.id} passes, but ralph has not verified it`;
  const when = `iteration ${each.iteration ?? '?'}, ${each.at ?? '?'}${
    each.commit === null ? '' : `, commit ${each.commit.slice(0, 12)}`
  }`;
  if (each.verdict === 'unchecked') return `${each.id} accepted without checks (${when})`;
  const word = each.verdict === 'pass' ? 'verified' : 'rejected';
  return `${each.id} ${word} (${when}): ${each.checks.join(', ')}`;
}
