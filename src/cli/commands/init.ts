import { Command, Option } from '@commander-js/extra-typings';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import { findPromptFile, findTaskListFile, loopPaths } from '../../state/paths.js';
import { writeFileAtomic } from '../../state/atomic-write.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { loadCommandLoop } from '../settings.js';

/** The scaffold, in the order it is listed to the user. Templates ship in the package's templates/. */
const SCAFFOLD = [
  { template: 'prompt.md', target: 'prompt', about: 'the prompt every iteration receives' },
  { template: 'prd.json', target: 'prd', about: 'the task list: replace the example stories' },
  { template: 'spec.md', target: 'spec', about: 'the requirements the stories come from' },
  { template: 'progress.txt', target: 'progress', about: 'the log the agent appends to' },
  { template: 'gitignore', target: 'gitignore', about: "keeps ralph's run state out of git" },
] as const;

const TEMPLATES_DIR = new URL('../../../templates/', import.meta.url);

/** `--template`: which prompt.md to start from. tdd is the Ralph Hybrid spec's TDD prompt. */
const PROMPT_TEMPLATES = { default: 'prompt.md', tdd: 'prompt-tdd.md' } as const;

export function initCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('init')
    .description(
      'Create a loop directory with prompt.md (a test-first, one-story-per-session prompt),\n' +
        'an example prd.json, a spec.md skeleton and progress.txt. Never overwrites: if any of\n' +
        'these files exists, nothing is written (--missing writes only the files that are missing).',
    )
    .argument('[dir]', 'loop directory to create (default: .ralph/<git branch>/)')
    .option(
      '--missing',
      'complete an existing loop directory: write only the missing files, never replace one',
    )
    .addOption(
      new Option(
        '--template <name>',
        'prompt.md to start from: default, or tdd (test first, with amendment awareness)',
      )
        .choices(['default', 'tdd'] as const)
        .default('default' as const),
    )
    .action(async (dir, options) => {
      try {
        const { loop: resolved } = await loadCommandLoop(context, dir);
        for (const warning of resolved.warnings)
          writeLine(context.stderr, `ralph: warning: ${warning}`);
        const outsideGit = resolved.repoRoot === undefined;
        const written = await scaffold(
          resolved.dir,
          resolved.branch ?? basename(resolved.dir),
          options.missing === true,
          PROMPT_TEMPLATES[options.template],
        );
        const shown = relative(context.cwd, resolved.dir) || '.';
        if (written.length === 0) {
          writeLine(context.stdout, `${shown}/ has every file already; nothing written.`);
          return;
        }
        writeLine(
          context.stdout,
          `${options.missing === true ? 'Completed' : 'Created'} ${shown}/`,
        );
        for (const file of written)
          writeLine(context.stdout, `  ${file.name.padEnd(13)} ${file.about}`);
        writeLine(context.stdout);
        // DIR outside a repository: `ralph run` would refuse it, so the first step is git's.
        if (outsideGit) {
          writeLine(
            context.stdout,
            `${shown}/ is not in a git repository; the agent commits each story.`,
          );
          writeLine(
            context.stdout,
            'Next: run `git init` (and commit), write your stories into spec.md and',
          );
          writeLine(context.stdout, 'prd.json, then run');
        } else {
          writeLine(context.stdout, 'Next: write your stories into spec.md and prd.json, then run');
        }
        writeLine(context.stdout, `  ralph validate${dir === undefined ? '' : ` ${dir}`}`);
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

async function scaffold(
  dir: string,
  feature: string,
  missingOnly: boolean,
  promptTemplate: string,
): Promise<{ name: string; about: string }[]> {
  const paths = loopPaths(dir);
  const all = SCAFFOLD.map((entry) => ({
    ...entry,
    template: entry.target === 'prompt' ? promptTemplate : entry.template,
    path: paths[entry.target],
  }));
  const existing: string[] = [];
  for (const target of all) {
    if ((await stat(target.path).catch(() => undefined)) !== undefined) existing.push(target.path);
  }
  // An existing loop under the other names would be shadowed by the example prd.json/prompt.md.
  const taskList = await findTaskListFile(dir);
  const prompt = await findPromptFile(dir);
  for (const found of [taskList, prompt]) {
    if (found !== undefined && !existing.includes(found.path)) existing.push(found.path);
  }
  if (existing.length > 0 && !missingOnly) {
    throw new RalphError('ALREADY_EXISTS', `refusing to overwrite: ${existing.join(', ')}`, {
      hint: 'ralph init never replaces files; `ralph init --missing` (same DIR) writes only the missing ones',
    });
  }
  const targets = all.filter(
    (target) =>
      !existing.includes(target.path) &&
      !(target.target === 'prd' && taskList !== undefined) &&
      !(target.target === 'prompt' && prompt !== undefined),
  );
  const values = { feature, createdAt: new Date().toISOString() };
  // Render everything before writing anything, so a missing template cannot leave half a scaffold.
  const rendered = await Promise.all(
    targets.map(async (target) => ({
      ...target,
      text: render(
        await readFile(new URL(target.template, TEMPLATES_DIR), 'utf8'),
        target.template.endsWith('.json') ? jsonEscaped(values) : values,
      ),
    })),
  );
  await mkdir(dir, { recursive: true });
  for (const file of rendered) await writeFileAtomic(file.path, file.text);
  return rendered.map((file) => ({ name: basename(file.path), about: file.about }));
}

function render(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/** A branch name may hold characters JSON must escape (git allows `"`). */
function jsonEscaped(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, JSON.stringify(value).slice(1, -1)]),
  );
}
