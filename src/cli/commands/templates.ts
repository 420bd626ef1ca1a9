import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loopPaths } from '../../state/paths.js';
import { addTemplate } from '../../templates/add.js';
import { findTemplate, LIBRARY_DIR, TEMPLATES, type Template } from '../../templates/catalogue.js';
import { suggestTemplates, type Suggestion } from '../../templates/suggest.js';
import { RalphError } from '../../util/errors.js';
import { writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { commandGroup, writeJson } from '../output.js';
import { resolveWatchTarget, shownPath } from './watch-target.js';

/** `ralph templates list | add | suggest`: the skills, scripts and hooks shipped with ralph. */
export function templatesCommand(context: CliContext, setExitCode: SetExitCode) {
  const fail = (error: unknown, json = false) => {
    setExitCode(reportError(error, context, json));
  };
  const templates = commandGroup(
    'templates',
    'The template library: skills (instructions for the agent), scripts (one call, a JSON\n' +
      'report) and hooks, copied into a loop directory and adapted there.',
    context,
  );

  templates
    .command('list')
    .description('List the templates: name, kind, when to use it, what it does.')
    .option('--json', 'print the list as JSON')
    .action((options) => {
      if (options.json === true) {
        writeJson(context, TEMPLATES);
        return;
      }
      for (const kind of ['skill', 'script', 'hook'] as const) {
        writeLine(context.stdout, `${kind[0]?.toUpperCase() ?? ''}${kind.slice(1)}s:`);
        for (const template of TEMPLATES.filter((each) => each.kind === kind)) {
          writeLine(context.stdout, `  ${template.name.padEnd(28)} ${template.useWhen}`);
          writeLine(context.stdout, `  ${''.padEnd(28)} ${template.description}`);
        }
      }
      writeLine(
        context.stdout,
        '\n`ralph templates add NAME [DIR]` copies one into a loop directory.',
      );
    });

  templates
    .command('add')
    .description(
      'Copy a template’s files into the loop directory (skills/, scripts/, hooks/). A file\n' +
        'already there that differs (you adapted it) is kept unless --force.',
    )
    .argument('<name>', 'the template (`ralph templates list`)')
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--force', 'replace files that differ from the library’s')
    .action(async (name, dir, options) => {
      try {
        const template = requireTemplate(name);
        const target = await resolveWatchTarget(context, dir);
        const added = await addTemplate(template, target.dir, {
          libraryDir: LIBRARY_DIR,
          force: options.force === true,
        });
        const words = {
          created: 'added',
          same: 'unchanged',
          kept: 'kept (yours differs; --force replaces it)',
          replaced: 'replaced',
        };
        for (const file of added) {
          writeLine(
            context.stdout,
            `  ${shownPath(context.cwd, file.target)}: ${words[file.result]}`,
          );
        }
        writeLine(context.stdout, usageOf(template, shownPath(context.cwd, target.dir)));
      } catch (error) {
        fail(error);
      }
    });

  templates
    .command('suggest')
    .description(
      'Propose templates from the words of the loop directory’s spec.md (migration, visual\n' +
        'parity, API, large codebase, security), with the words that led to each.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--json', 'print the suggestions as JSON')
    .action(async (dir, options) => {
      const json = options.json === true;
      try {
        const target = await resolveWatchTarget(context, dir);
        const suggestions = await suggestionsFor(target.dir);
        if (suggestions === undefined) {
          throw new RalphError('USAGE', `no spec.md in ${target.name}`, {
            hint: 'suggestions come from the feature description in spec.md',
          });
        }
        if (json) {
          writeJson(context, suggestions);
          return;
        }
        if (suggestions.length === 0) {
          writeLine(context.stdout, 'No template matches the words of spec.md.');
          return;
        }
        for (const line of suggestionLines(suggestions)) writeLine(context.stdout, line);
      } catch (error) {
        fail(error, json);
      }
    });
  return templates;
}

function requireTemplate(name: string): Template {
  const template = findTemplate(name);
  if (template !== undefined) return template;
  throw new RalphError('USAGE', `no template named ${name}`, {
    hint: `one of: ${TEMPLATES.map((each) => each.name).join(', ')}`,
  });
}

function usageOf(template: Template, dir: string): string {
  const first = template.files[0]?.target ?? '';
  if (template.kind === 'script')
    return `Run it: node ${dir}/${first} (JSON on stdout, a summary on stderr).`;
  if (template.kind === 'hook') {
    return `Set the base URL and pages in ${dir}/hooks/visual-diff/config.json; it runs after each iteration.`;
  }
  return `Point the agent at it: name ${dir}/${first} in prompt.md or a story's notes.`;
}

/** The suggestions for a loop directory, each marked when already added; undefined without spec.md. */
export async function suggestionsFor(
  loopDir: string,
): Promise<(Suggestion & { added: boolean })[] | undefined> {
  const spec = await readFile(loopPaths(loopDir).spec, 'utf8').catch(() => undefined);
  if (spec === undefined) return undefined;
  return suggestTemplates(spec).map((suggestion) => {
    const files = findTemplate(suggestion.template)?.files ?? [];
    return { ...suggestion, added: files.every((file) => existsSync(join(loopDir, file.target))) };
  });
}

export function suggestionLines(
  suggestions: readonly (Suggestion & { added: boolean })[],
): string[] {
  return suggestions.map((suggestion) => {
    const why = suggestion.because
      .map((each) => `${each.pattern}: ${each.words.map((word) => `"${word}"`).join(', ')}`)
      .join('; ');
    return `  ${suggestion.template.padEnd(28)} ${suggestion.added ? '(added) ' : ''}${why}`;
  });
}

/** `ralph validate`'s note: templates spec.md calls for that the loop directory lacks. */
export async function printTemplateHint(
  context: CliContext,
  loopDir: string | undefined,
): Promise<void> {
  if (loopDir === undefined || loopDir === '') return;
  const missing = ((await suggestionsFor(resolve(context.cwd, loopDir))) ?? []).filter(
    (each) => !each.added,
  );
  if (missing.length === 0) return;
  writeLine(
    context.stdout,
    `Templates that may help (from spec.md): ${missing.map((each) => each.template).join(', ')}.` +
      ' `ralph templates suggest` says why; `ralph templates add NAME` copies one.',
  );
}
