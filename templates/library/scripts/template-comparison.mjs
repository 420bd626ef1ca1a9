#!/usr/bin/env node
// template-comparison: the CSS classes the source templates use that the target templates (the
// framework being migrated to) do not, per source file. For migrations that must keep the look.
//
//   node template-comparison.mjs SOURCE_DIR TARGET_DIR
//
// Reads class="…" (HTML, Jinja2, ERB, Vue, Svelte), className="…" / className={'…'} and
// className={`…`} (JSX); template expressions inside the value ({{ }}, {% %}, ${ }) are dropped.
// stdout: one JSON report; stderr: a summary. Exit 0 when nothing is missing, 1 when classes are,
// 2 on a usage error. Node 18+, no dependencies.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';

const SKIP = new Set(['node_modules', '.git', 'dist', 'build', 'coverage', '.next']);
const EXTENSIONS = new Set([
  '.html', '.htm', '.jinja', '.jinja2', '.j2', '.njk', '.hbs', '.erb', '.php', '.jsx', '.tsx',
  '.js', '.ts', '.vue', '.svelte', '.astro',
]);

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name)) yield* walk(join(dir, entry.name));
    } else if (entry.isFile() && EXTENSIONS.has(extname(entry.name).toLowerCase())) {
      yield join(dir, entry.name);
    }
  }
}

const ATTRIBUTE =
  /\b(?:class|className)\s*=\s*(?:"([^"]*)"|'([^']*)'|\{\s*["'`]([^"'`]*)["'`]\s*\})/g;

function classesOf(text) {
  const found = new Set();
  for (const match of text.matchAll(ATTRIBUTE)) {
    const value = (match[1] ?? match[2] ?? match[3] ?? '')
      .replace(/\{\{.*?\}\}|\{%.*?%\}|\$\{.*?\}|<%.*?%>/g, ' ');
    for (const name of value.split(/\s+/)) {
      if (/^[A-Za-z_-][\w:/.[\]%-]*$/.test(name)) found.add(name);
    }
  }
  return found;
}

function scan(root) {
  const files = new Map();
  for (const file of statSync(root).isDirectory() ? walk(root) : [root]) {
    files.set(relative(root, file) || file, classesOf(readFileSync(file, 'utf8')));
  }
  return files;
}

const [source, target, ...rest] = process.argv.slice(2);
if (source === undefined || target === undefined || rest.length > 0) {
  process.stderr.write('usage: template-comparison.mjs SOURCE_DIR TARGET_DIR\n');
  process.exit(2);
}
const sourceFiles = scan(source);
const targetFiles = scan(target);
const union = (files) => new Set([...files.values()].flatMap((set) => [...set]));
const sourceClasses = union(sourceFiles);
const targetClasses = union(targetFiles);
const missing = [...sourceClasses].filter((name) => !targetClasses.has(name)).sort();
const extra = [...targetClasses].filter((name) => !sourceClasses.has(name)).sort();
const missingByFile = {};
for (const [file, classes] of sourceFiles) {
  const gone = [...classes].filter((name) => !targetClasses.has(name)).sort();
  if (gone.length > 0) missingByFile[file] = gone;
}
const report = {
  audit: 'template-comparison',
  summary: {
    source_files: sourceFiles.size,
    target_files: targetFiles.size,
    source_classes: sourceClasses.size,
    target_classes: targetClasses.size,
    missing: missing.length,
    extra: extra.length,
    status: missing.length === 0 ? 'pass' : 'fail',
  },
  missing,
  extra,
  missing_by_file: missingByFile,
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.stderr.write(
  `template-comparison: ${sourceClasses.size} classes in ${sourceFiles.size} source files, ` +
    `${missing.length} missing from the target${missing.length > 0 ? ` (${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''})` : ''}\n`,
);
process.exitCode = missing.length === 0 ? 0 : 1;
