import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTemplate } from './add.js';
import { findTemplate, LIBRARY_DIR, TEMPLATES } from './catalogue.js';
import { suggestTemplates } from './suggest.js';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe('the template library', () => {
  it('lists every file shipped in templates/library/, and ships every file it lists', async () => {
    const listed = TEMPLATES.flatMap((template) => template.files.map((file) => file.source)).sort();
    expect(listed).toEqual(await filesUnder(LIBRARY_DIR));
    expect(TEMPLATES.map((each) => each.kind)).toEqual(expect.arrayContaining(['skill', 'script', 'hook']));
    expect(findTemplate('css-audit.mjs')?.name).toBe('css-audit');
  });

  it('copies into a loop directory, and keeps a file the person changed unless forced', async () => {
    const loop = await mkdtemp(join(tmpdir(), 'ralph-templates-'));
    const hook = findTemplate('post-iteration-visual-diff');
    if (hook === undefined) throw new Error('no hook template');
    const options = { libraryDir: LIBRARY_DIR, force: false };
    const first = await addTemplate(hook, loop, options);
    expect(first.map((each) => [relative(loop, each.target), each.result])).toEqual([
      ['hooks/post_iteration.d/visual-diff.sh', 'created'],
      ['hooks/visual-diff/visual-diff.mjs', 'created'],
      ['hooks/visual-diff/config.json', 'created'],
    ]);
    const config = join(loop, 'hooks', 'visual-diff', 'config.json');
    await writeFile(config, '{"baseUrl": "http://localhost:8080"}\n');
    const again = await addTemplate(hook, loop, options);
    expect(again.map((each) => each.result)).toEqual(['same', 'same', 'kept']);
    expect(await readFile(config, 'utf8')).toContain('8080');
    const forced = await addTemplate(hook, loop, { ...options, force: true });
    expect(forced.map((each) => each.result)).toEqual(['same', 'same', 'replaced']);
    expect(await readFile(config, 'utf8')).toBe(
      await readFile(join(LIBRARY_DIR, 'hooks', 'visual-diff.json'), 'utf8'),
    );
  });
});

describe('suggestTemplates', () => {
  it('proposes templates from the words of a feature description, saying which words', () => {
    const spec =
      '# Move the dashboard to React\n\nMigrate the Jinja2 templates; the pages must look the same.\n' +
      'The login form keeps its session handling. New REST API endpoints for the widgets.';
    const suggestions = suggestTemplates(spec);
    expect(suggestions.map((each) => each.template)).toEqual([
      'visual-parity-migration',
      'css-audit',
      'template-comparison',
      'post-iteration-visual-diff',
      'endpoint-validation',
      'adversarial-review',
    ]);
    expect(suggestions[0]?.because).toEqual([
      { pattern: 'framework migration', words: ['migrate', 'react', 'jinja2'] },
      { pattern: 'visual parity', words: ['look the same'] },
    ]);
  });

  it('matches whole words only', () => {
    expect(suggestTemplates('Support the author field; rest of the report unchanged.')).toEqual([]);
    expect(suggestTemplates('Refactor a module')).toEqual([]);
  });
});
