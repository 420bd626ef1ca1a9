import { Command } from '@commander-js/extra-typings';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { readEvidenceLog, type EvidenceEntry } from '../../state/evidence-log.js';
import { userStateDir } from '../../state/user-state.js';
import { RalphError } from '../../util/errors.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { writeJson } from '../output.js';
import { resolveWatchTarget } from './watch-target.js';

export function evidenceCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('evidence')
    .description(
      'Show how ralph verified the stories the agent claimed (DIR/evidence.jsonl): per\n' +
        'verification the story, iteration, commit, each command with its exit code and duration,\n' +
        'the verdict, and the end of a failing command’s output. With STORY, only that story.\n' +
        'A lone argument that is no directory is taken as STORY.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .argument('[story]', 'only this story, e.g. STORY-001')
    .option('--json', 'print the evidence lines as JSON')
    .action(async (first, second, options) => {
      const json = options.json === true;
      try {
        const [dir, story] =
          second === undefined && first !== undefined && !(await isDirectory(context, first))
            ? [undefined, first]
            : [first, second];
        const target = await resolveWatchTarget(context, dir);
        const log = await readEvidenceLog(
          target.dir,
          userStateDir(context.env, homeDirOf(context)),
        );
        // Lines ralph did not seal (an agent's forged "pass") never count; they are named.
        if (log.notRalphs > 0) {
          writeLine(
            context.stderr,
            `ralph: ${log.notRalphs} line(s) of ${target.name}/evidence.jsonl were not written by ralph: not shown, never counted`,
          );
        }
        if (log.lost !== undefined) {
          writeLine(
            context.stderr,
            `ralph: ${target.name}/evidence.jsonl is incomplete: ${log.lost}`,
          );
        }
        const entries = log.entries.filter(
          (entry) => story === undefined || entry.storyId === story,
        );
        if (story !== undefined && entries.length === 0) {
          throw new RalphError('USAGE', `no evidence for ${story} in ${target.name}`, {
            hint: 'ralph records evidence when the agent claims a story; `ralph evidence` lists every story it has.',
          });
        }
        if (json) {
          writeJson(context, entries);
          return;
        }
        if (entries.length === 0) {
          writeLine(context.stdout, `No evidence yet in ${target.name}/evidence.jsonl.`);
          return;
        }
        for (const group of byVerification(entries)) printGroup(context, group);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

async function isDirectory(context: CliContext, path: string): Promise<boolean> {
  return (await stat(resolve(context.cwd, path)).catch(() => undefined))?.isDirectory() === true;
}

/** Consecutive lines of one story and iteration: one verification. */
function byVerification(entries: readonly EvidenceEntry[]): EvidenceEntry[][] {
  const groups: EvidenceEntry[][] = [];
  for (const entry of entries) {
    const last = groups.at(-1);
    const head = last?.[0];
    if (
      last !== undefined &&
      head?.storyId === entry.storyId &&
      head.iteration === entry.iteration
    ) {
      last.push(entry);
    } else groups.push([entry]);
  }
  return groups;
}

function printGroup(context: CliContext, group: EvidenceEntry[]): void {
  const head = group[0];
  if (head === undefined) return;
  const verdict = group.some((each) => each.verdict === 'fail')
    ? 'REJECTED'
    : group.every((each) => each.verdict === 'unchecked')
      ? 'UNCHECKED (no checks configured)'
      : 'VERIFIED';
  const commit = head.commit === undefined ? '' : `, commit ${head.commit.slice(0, 12)}`;
  writeLine(
    context.stdout,
    `${head.storyId} — ${verdict} — iteration ${head.iteration}, ${head.at}${commit}`,
  );
  for (const entry of group) {
    if (entry.kind === 'unchecked') continue;
    const what = entry.command ?? entry.name ?? entry.kind;
    const how =
      entry.timedOut === true
        ? 'timed out'
        : entry.exitCode === undefined
          ? 'did not run'
          : `exit ${entry.exitCode}`;
    writeLine(
      context.stdout,
      `  ${entry.verdict.padEnd(4)}  ${entry.kind.padEnd(9)}  ${what}  (${how}, ${(entry.durationMs / 1000).toFixed(1)} s)`,
    );
    if (entry.verdict === 'fail') {
      for (const line of entry.outputTail.trimEnd().split('\n').slice(-8)) {
        writeLine(context.stdout, `        │ ${line}`);
      }
    }
  }
}
