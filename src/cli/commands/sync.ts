import { Command, Option } from '@commander-js/extra-typings';
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { planPaths, refuseWhileRunning, type PlanPaths } from '../../plan/amend-files.js';
import { readTaskListFile } from '../../plan/read.js';
import { prdFromSpec, syncPrdFromSpec, type SyncOutcome } from '../../plan/sync-prd.js';
import { specFromPrd, syncSpecFromPrd } from '../../plan/sync-spec.js';
import { writeFileAtomic } from '../../state/atomic-write.js';
import { isFile, loopPaths } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { ExitCode, reportError } from '../exit.js';
import { writeJson } from '../output.js';
import { loadCommandLoop } from '../settings.js';

/**
 * `ralph sync [DIR]`: makes prd.json follow spec.md (the source of truth), or with `--from prd`
 * spec.md follow prd.json. Exit 0 when the pair is in sync afterwards, 1 when orphans were kept
 * (the person decides about them), 2 for bad input.
 */
export function syncCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('sync')
    .description(
      'Regenerate prd.json from spec.md (spec.md is the source of truth): stories written in\n' +
        'spec.md are added, changed titles and criteria taken over (a passing story whose criteria\n' +
        'changed is reset to passes: false), passes and notes of the rest kept. Stories only prd.json\n' +
        'has (orphans) are removed only with --confirm-orphan-removal. --from prd writes spec.md\n' +
        'from prd.json instead. Only the changed parts of a file are rewritten.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .addOption(
      new Option('--from <source>', 'which file is the source')
        .choices(['spec', 'prd'])
        .default('spec'),
    )
    .option(
      '--confirm-orphan-removal',
      'remove stories the source does not have (even passing ones)',
    )
    .option('--dry-run', 'print what would change; write nothing')
    .option('--json', 'print {changes, warnings, keptOrphans, wrote} as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const { loop: resolved } = await loadCommandLoop(context, dir);
        const paths = planPaths(resolved.dir);
        await refuseWhileRunning(paths.dir, 'sync the plan');
        const request = { confirmOrphanRemoval: options.confirmOrphanRemoval };
        const fromPrd = options.from === 'prd';
        const target = fromPrd ? paths.spec : paths.prd;
        const before = await readFile(target, 'utf8').catch(() => undefined);
        const outcome = fromPrd
          ? await toSpec(paths, before, request)
          : await toPrd(paths, before, request);
        const wrote = options.dryRun !== true && outcome.text !== before;
        if (wrote) {
          const now = await readFile(target, 'utf8').catch(() => undefined);
          if (now !== before) {
            throw new RalphError('IO', `${target} changed while ralph was syncing it`, {
              hint: 'nothing was written; run the command again',
            });
          }
          await writeFileAtomic(target, outcome.text);
        }
        if (json) {
          writeJson(context, { ...outcomeJson(outcome), wrote, file: target });
        } else {
          report(outcome, target, wrote, options.dryRun === true, context);
        }
        setExitCode(outcome.keptOrphans.length > 0 ? ExitCode.failure : ExitCode.ok);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

async function toPrd(
  paths: PlanPaths,
  before: string | undefined,
  request: { confirmOrphanRemoval?: boolean | undefined },
): Promise<SyncOutcome> {
  const specText = await readFile(paths.spec, 'utf8').catch((error: unknown) => {
    throw new RalphError('IO', `cannot read ${paths.spec}`, {
      location: { file: paths.spec },
      hint: 'spec.md is the source: write it, or run `ralph sync --from prd` to make one from prd.json',
      cause: error,
    });
  });
  if (before === undefined) {
    // A second task list beside feature_list.json would leave the loop two sources of truth.
    if (await isFile(loopPaths(paths.dir).featureList)) {
      throw new RalphError(
        'INVALID_TASK_LIST',
        `${paths.dir} uses feature_list.json, not prd.json`,
        {
          hint: 'ralph sync keeps prd.json in line with spec.md; convert the feature list to a prd.json first',
        },
      );
    }
    return prdFromSpec(specText, paths.spec, new Date());
  }
  return syncPrdFromSpec(specText, paths.spec, await readTaskListFile(paths.prd), request);
}

async function toSpec(
  paths: PlanPaths,
  before: string | undefined,
  request: { confirmOrphanRemoval?: boolean | undefined },
): Promise<SyncOutcome> {
  const doc = await readTaskListFile(paths.prd);
  if (doc.taskList.stories.some((s) => !s.hasId)) {
    throw new RalphError(
      'INVALID_TASK_LIST',
      `${paths.prd}: stories without ids cannot be synced`,
      {
        hint: 'give each story an id (STORY-001, …)',
      },
    );
  }
  if (before === undefined) return specFromPrd(doc, new Date());
  return syncSpecFromPrd(before, paths.spec, doc, request);
}

function outcomeJson(outcome: SyncOutcome) {
  const { changes, warnings, keptOrphans } = outcome;
  return { changes, warnings, keptOrphans };
}

function report(
  outcome: SyncOutcome,
  target: string,
  wrote: boolean,
  dryRun: boolean,
  context: CliContext,
): void {
  for (const warning of outcome.warnings) writeLine(context.stderr, `ralph: warning: ${warning}`);
  const shown = relative(context.cwd, target) || target;
  if (outcome.changes.length === 0 && !wrote) {
    writeLine(context.stdout, `${shown} is in sync; nothing to change.`);
    return;
  }
  const verb = dryRun ? 'Would update' : wrote ? 'Updated' : 'Nothing written to';
  writeLine(context.stdout, `${verb} ${shown}:`);
  for (const change of outcome.changes) writeLine(context.stdout, `  ${change}`);
}
