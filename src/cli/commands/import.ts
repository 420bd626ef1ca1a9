import { Command, Option } from '@commander-js/extra-typings';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { importPlan, type ImportFormat } from '../../plan/import/import-plan.js';
import { writeFileAtomic } from '../../state/atomic-write.js';
import { loopPaths, resolveLoopDir } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { loadCommandConfig } from '../settings.js';

export function importCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('import')
    .description(
      'Turn a PRD written elsewhere into a prd.json ralph can run: Markdown with story headings\n' +
        '(### STORY-001: …, ### US-001: …, ### Task 1: …) or a checklist (- [ ] …, checked = passes),\n' +
        'or JSON with userStories, stories, features, requirements or tasks. Ids are kept as written.\n' +
        'An existing prd.json is kept unless --force; a file with no tasks is refused, nothing written.',
    )
    .argument('<file>', 'the PRD to import (.md, .json, or any text file with --format)')
    .option(
      '-o, --output <path>',
      'where to write prd.json (default: .ralph/<git branch>/prd.json)',
    )
    .addOption(
      new Option(
        '--format <format>',
        'read FILE as this format (default: from its extension)',
      ).choices(['markdown', 'json'] as const),
    )
    .option('--force', 'replace an existing output file')
    .action(async (file, options) => {
      try {
        const source = resolve(context.cwd, file);
        const bytes = await readFile(source).catch((error: unknown) => {
          throw new RalphError('IO', `cannot read ${file}: ${(error as Error).message}`, {
            location: { file },
          });
        });
        const target = await outputPath(context, options.output);
        if (target === source) {
          throw new RalphError('USAGE', `the output ${file} is the file being imported`, {
            hint: 'pass another path with -o',
          });
        }
        const format: ImportFormat | undefined = options.format;
        const result = importPlan(bytes, file, { format, now: new Date() });
        if (options.force !== true && (await stat(target).catch(() => undefined)) !== undefined) {
          throw new RalphError(
            'ALREADY_EXISTS',
            `refusing to overwrite ${shown(context, target)}`,
            {
              hint: 'pass --force to replace it, or -o to write elsewhere; nothing was written',
            },
          );
        }
        await mkdir(dirname(target), { recursive: true });
        await writeFileAtomic(target, result.text);
        for (const warning of result.warnings)
          writeLine(context.stderr, `ralph: warning: ${warning}`);
        writeLine(
          context.stdout,
          `Imported ${result.stories} ${result.stories === 1 ? 'story' : 'stories'} (${result.passing} passing) from ${file} (${result.format}: ${result.style})`,
        );
        writeLine(context.stdout, `Wrote ${shown(context, target)}`);
        writeLine(context.stdout, `Next: ralph validate ${shown(context, dirname(target))}`);
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

/** -o as given (a folder gets prd.json inside), else the branch's loop directory. */
async function outputPath(context: CliContext, output: string | undefined): Promise<string> {
  if (output !== undefined) {
    const path = resolve(context.cwd, output);
    const isDir = output.endsWith('/') || (await stat(path).catch(() => undefined))?.isDirectory();
    return isDir === true ? join(path, 'prd.json') : path;
  }
  const config = await loadCommandConfig(context);
  const resolved = await resolveLoopDir({
    cwd: context.cwd,
    protectedBranches: config.protectedBranches,
  }).catch((error: unknown) => {
    // Outside a repository (or on no branch) there is no loop directory to derive: say -o.
    if (error instanceof RalphError)
      throw new RalphError(error.code, error.message, {
        hint: 'pass -o OUT to say where prd.json goes',
      });
    throw error;
  });
  for (const warning of resolved.warnings) writeLine(context.stderr, `ralph: warning: ${warning}`);
  return loopPaths(resolved.dir).prd;
}

function shown(context: CliContext, path: string): string {
  const rel = relative(context.cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}
