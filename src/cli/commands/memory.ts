import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { findGitRepo } from '../../state/git.js';
import { categoryOf, isoSeconds, MEMORY_CATEGORIES, tagsOf } from '../../state/memory-format.js';
import type { MemoryCategory, MemoryEntry } from '../../state/memory-format.js';
import {
  appendMemory,
  loadMemories,
  pruneMemoryFile,
  type MemoryScope,
  type ScopedEntry,
} from '../../state/memory-file.js';
import { loopPaths, projectPaths } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { commandGroup, writeJson } from '../output.js';
import { resolveWatchTarget, shownPath } from './watch-target.js';

/** `ralph memory add|list|prune`: the project's and a feature's memories.md. */
export function memoryCommand(context: CliContext, setExitCode: SetExitCode) {
  const fail = (error: unknown, json = false) => {
    setExitCode(reportError(error, context, json));
  };
  const memory = commandGroup(
    'memory',
    'Memories: reusable learnings in memories.md, the project’s (.ralph/memories.md) and each\n' +
      'loop directory’s (which inherits the project’s), under Patterns, Decisions, Fixes and\n' +
      'Context, with tags and timestamps. The prompt gets those a story’s tags match, within\n' +
      'memory.tokenBudget (see memory.injection).',
    context,
  );

  memory
    .command('add')
    .description('Add an entry, timestamped now, to the loop directory’s memories.md.')
    .usage('[options] [DIR] TEXT')
    .argument('<dir-or-text>', 'loop directory (default: .ralph/<git branch>/), then TEXT')
    .argument('[text]', 'the learning, one line')
    .addOption(categoryOption().makeOptionMandatory())
    .option('-t, --tag <tags>', 'a tag, or several separated by commas; repeatable', collect, [])
    .option('--project', "add to the project's .ralph/memories.md instead")
    .action(async (first, second, options) => {
      try {
        const [dir, text] = second === undefined ? [undefined, first] : [first, second];
        const line = text.replace(/\s+/g, ' ').trim();
        if (line === '') throw new RalphError('USAGE', 'the memory text is empty');
        const target = await fileFor(context, dir, options.project === true);
        const entry = {
          category: options.category,
          timestamp: isoSeconds(new Date()),
          tags: tagsOf(options.tag.join(',')),
          text: line,
        };
        await appendMemory(target.file, target.scope, entry);
        writeLine(
          context.stdout,
          `Added to ${shownPath(context.cwd, target.file)} (${entry.category}).`,
        );
      } catch (error) {
        fail(error);
      }
    });

  memory
    .command('list')
    .description('List the entries a loop directory sees: its own, then the project’s.')
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .addOption(categoryOption())
    .option('-t, --tag <tags>', 'only entries with one of these tags; repeatable', collect, [])
    .option('--project', "only the project's .ralph/memories.md")
    .option('--json', 'print the entries as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const files = await filesFor(context, dir, options.project === true);

        const pick = filterOf(options.category, options.tag, undefined);
        const project = options.project === true;
        const entries = (await loadMemories(files))
          .filter(pick)
          .map((entry): ScopedEntry => (project ? { ...entry, scope: 'project' } : entry));
        if (json) {
          writeJson(context, entries.map(jsonOf));
          return;
        }
        printEntries(context, entries);
      } catch (error) {
        fail(error, json);
      }
    });

  memory
    .command('prune')
    .description(
      'Remove the entries that match every filter given (at least one): a category, tags,\n' +
        'an age. Other lines of the file stay exactly as they are.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .addOption(categoryOption())
    .option('-t, --tag <tags>', 'entries with one of these tags; repeatable', collect, [])
    .option('--older-than <age>', 'entries older than 30d, 12h, 2w, or a date (2026-01-31)', ageOf)
    .option('--project', "prune the project's .ralph/memories.md instead")
    .option('--dry-run', 'say what would go, change nothing')
    .action(async (dir, options) => {
      try {
        if (options.category === undefined && options.tag.length === 0) {
          if (options.olderThan === undefined) {
            throw new RalphError(
              'USAGE',
              'prune needs a filter: --category, --tag or --older-than',
              {
                hint: 'to empty the file, delete it; ralph starts a new one on the next `ralph memory add`',
              },
            );
          }
        }
        const target = await fileFor(context, dir, options.project === true);
        const pick = filterOf(options.category, options.tag, options.olderThan);
        const dryRun = options.dryRun === true;
        const removed = await pruneMemoryFile(target.file, pick, { dryRun });
        const shown = shownPath(context.cwd, target.file);
        for (const entry of removed) writeLine(context.stdout, `  ${entryLine(entry)}`);
        writeLine(
          context.stdout,
          `${dryRun ? 'Would remove' : 'Removed'} ${removed.length} ${removed.length === 1 ? 'entry' : 'entries'} from ${shown}.`,
        );
      } catch (error) {
        fail(error);
      }
    });
  return memory;
}

function categoryOption() {
  return new Option(
    '-c, --category <category>',
    `one of ${MEMORY_CATEGORIES.join(', ')}`,
  ).argParser((value): MemoryCategory => {
    const category = categoryOf(value);
    if (category === undefined) {
      throw new InvalidArgumentError(`use one of ${MEMORY_CATEGORIES.join(', ')}`);
    }
    return category;
  });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `30d`, `12h`, `2w`, `45m` before now, or a date: the cut-off as an ISO time. */
function ageOf(value: string): string {
  const relative = /^(\d+)\s*([mhdw])$/i.exec(value.trim());
  if (relative !== null) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[
      (relative[2] ?? 'd').toLowerCase() as 'm' | 'h' | 'd' | 'w'
    ];
    return isoSeconds(new Date(Date.now() - Number(relative[1]) * unit));
  }
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new InvalidArgumentError('use 30d, 12h, 2w, 45m or a date');
  return isoSeconds(new Date(ms));
}

function filterOf(
  category: MemoryCategory | undefined,
  tags: readonly string[],
  before: string | undefined,
): (entry: MemoryEntry) => boolean {
  const wanted = new Set(tagsOf(tags.join(',')));
  return (entry) =>
    (category === undefined || entry.category === category) &&
    (wanted.size === 0 || entry.tags.some((tag) => wanted.has(tag))) &&
    // An entry without a time has no age: it is never "older than".
    (before === undefined || (entry.timestamp !== undefined && entry.timestamp < before));
}

async function projectFile(context: CliContext): Promise<string> {
  const repo = await findGitRepo(context.cwd).catch(() => undefined);
  if (repo === undefined) {
    throw new RalphError('NOT_A_GIT_REPO', `${context.cwd} is not in a git repository`, {
      hint: "project memories live in the repository's .ralph/memories.md: run this inside the repository",
    });
  }
  return projectPaths(repo.root).memories;
}

async function fileFor(
  context: CliContext,
  dir: string | undefined,
  project: boolean,
): Promise<{ file: string; scope: MemoryScope }> {
  if (project) {
    const file = await projectFile(context);
    await ensureFolder(resolve(file, '..'));
    return { file, scope: 'project' };
  }
  const target = await resolveWatchTarget(context, dir);
  return { file: loopPaths(target.dir).memories, scope: 'feature' };
}

async function filesFor(context: CliContext, dir: string | undefined, project: boolean) {
  if (project) {
    const file = await projectFile(context);
    return { feature: file, project: undefined };
  }
  const target = await resolveWatchTarget(context, dir);
  const root = target.repoRoot;
  return {
    feature: loopPaths(target.dir).memories,
    project: root === undefined ? undefined : projectPaths(root).memories,
  };
}

async function ensureFolder(dir: string): Promise<void> {
  const found = await stat(dir).catch(() => undefined);
  if (found?.isDirectory() !== true) {
    throw new RalphError('LOOP_DIR_NOT_FOUND', `${dir} does not exist`, {
      hint: '`ralph init` creates .ralph/ and a loop directory in it',
    });
  }
}

function jsonOf(entry: ScopedEntry) {
  return {
    scope: entry.scope,
    file: entry.file,
    line: entry.line,
    category: entry.category,
    timestamp: entry.timestamp ?? null,
    tags: entry.tags,
    text: entry.text,
  };
}

function entryLine(entry: MemoryEntry): string {
  const tags = entry.tags.length > 0 ? ` [${entry.tags.join(',')}]` : '';
  return `${entry.category.padEnd(9)} ${entry.timestamp ?? '(no date)           '}${tags} ${entry.text}`;
}

function printEntries(context: CliContext, entries: readonly ScopedEntry[]): void {
  if (entries.length === 0) {
    writeLine(context.stdout, 'No memories match.');
    return;
  }
  let file: string | undefined;
  for (const entry of entries) {
    if (entry.file !== file) {
      file = entry.file;
      writeLine(context.stdout, `${shownPath(context.cwd, file)} (${entry.scope}):`);
    }
    writeLine(context.stdout, `  ${entryLine(entry)}`);
  }
}
