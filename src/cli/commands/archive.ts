import { Command } from '@commander-js/extra-typings';
import { basename, relative } from 'node:path';
import { archiveLoop } from '../../state/archive.js';
import { listArchives } from '../../run/archive-list.js';
import { acquireLock } from '../../state/lock.js';
import { findTaskListFile } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { writeJson } from '../output.js';
import { loadCommandLoop } from '../settings.js';

export function archiveCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('archive')
    .description(
      "Copy the loop's plan and history (prd.json or feature_list.json, progress.txt, spec.md,\n" +
        'specs/, memories.md) into DIR/archive/<timestamp>-<feature>/. The loop directory stays as\n' +
        'it is. Refused while a run holds the loop (its lock). --list shows the archives.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--list', 'list the archives of the loop directory instead')
    .option('--json', 'print the result as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const { loop: resolved } = await loadCommandLoop(context, dir);
        if (options.list === true) {
          const archives = await listArchives(resolved.dir);
          if (json) {
            writeJson(context, { loopDir: resolved.dir, archives });
            return;
          }
          if (archives.length === 0) writeLine(context.stdout, 'No archives yet.');
          for (const entry of archives) {
            const stories =
              entry.stories === undefined ? '' : `  ${entry.passing}/${entry.stories} passing`;
            writeLine(context.stdout, `${shown(context, entry.path)}${stories}`);
          }
          return;
        }
        if ((await findTaskListFile(resolved.dir)) === undefined) {
          throw new RalphError('TASK_LIST_NOT_FOUND', `nothing to archive in ${resolved.dir}`, {
            hint: 'pass the loop directory that holds prd.json or feature_list.json',
          });
        }
        // Holding the lock while copying: a run cannot start halfway through, and a running one
        // refuses the archive with its pid and command (acquireLock's LOCKED error).
        const lock = await acquireLock(resolved.dir, {
          pid: process.pid,
          command: `ralph archive ${shown(context, resolved.dir)}`,
          now: new Date(),
        });
        let target: string;
        try {
          target = await archiveLoop(resolved.dir, {
            feature: resolved.branch ?? basename(resolved.dir),
            now: new Date(),
          });
        } finally {
          await lock.release();
        }
        if (json) writeJson(context, { loopDir: resolved.dir, archivedTo: target });
        else writeLine(context.stdout, `Archived to ${shown(context, target)}`);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

function shown(context: CliContext, path: string): string {
  const rel = relative(context.cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}
