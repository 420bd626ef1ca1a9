#!/usr/bin/env node
// file-inventory: the files of a project by category (source, tests, styles, templates, config,
// docs, data, other) with their sizes, and optionally their text, in one call, so an agent reads
// a large feature's files once instead of opening the same ones again and again.
//
//   node file-inventory.mjs [DIR] [--content CATEGORY[,CATEGORY]] [--max-bytes 200000]
//                           [--match TEXT]
//
// --content adds the text of the files of those categories (or "all"), up to --max-bytes in
// total; --match keeps only paths containing TEXT. stdout: one JSON report; stderr: a summary.
// Exit 0, or 2 on a usage error. Node 18+, no dependencies.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, sep } from 'node:path';

const SKIP = new Set(['node_modules', '.git', 'dist', 'build', 'coverage', '.next', '.venv', 'venv', '__pycache__', 'target', '.ralph']);
const BY_EXTENSION = {
  style: ['.css', '.scss', '.sass', '.less', '.styl'],
  template: ['.html', '.htm', '.jinja', '.jinja2', '.j2', '.njk', '.hbs', '.erb', '.ejs', '.vue', '.svelte', '.astro'],
  config: ['.json', '.yaml', '.yml', '.toml', '.ini', '.cfg', '.conf', '.env'],
  docs: ['.md', '.mdx', '.rst', '.txt', '.adoc'],
  data: ['.csv', '.tsv', '.sql', '.xml', '.jsonl'],
  source: ['.js', '.mjs', '.cjs', '.jsx', '.ts', '.tsx', '.py', '.rb', '.go', '.rs', '.java', '.kt', '.c', '.h', '.cpp', '.cs', '.php', '.swift', '.sh'],
};
const CATEGORIES = ['source', 'test', 'style', 'template', 'config', 'docs', 'data', 'other'];

function categoryOf(path) {
  const name = basename(path).toLowerCase();
  const ext = extname(name);
  const parts = path.split(sep);
  if (
    BY_EXTENSION.source.includes(ext) &&
    (/[._-](test|spec)\.[^.]+$/.test(name) || name.startsWith('test_') ||
      parts.some((part) => ['test', 'tests', '__tests__', 'spec'].includes(part)))
  ) {
    return 'test';
  }
  if (['dockerfile', 'makefile', '.gitignore', '.editorconfig'].includes(name)) return 'config';
  for (const [category, extensions] of Object.entries(BY_EXTENSION)) {
    if (extensions.includes(ext)) return category;
  }
  return 'other';
}

const args = process.argv.slice(2);
let root = '.';
let content = new Set();
let maxBytes = 200_000;
let match;
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index];
  const value = () => {
    const next = args[++index];
    if (next === undefined) {
      process.stderr.write(`file-inventory: ${arg} needs a value\n`);
      process.exit(2);
    }
    return next;
  };
  if (arg === '--content') content = new Set(value().split(','));
  else if (arg === '--max-bytes') maxBytes = Number(value());
  else if (arg === '--match') match = value();
  else if (arg.startsWith('-')) {
    process.stderr.write(`file-inventory: unknown option ${arg}\nusage: file-inventory.mjs [DIR] [--content CATEGORIES] [--max-bytes N] [--match TEXT]\n`);
    process.exit(2);
  } else root = arg;
}

/** Lines as editors count them: a last line without a newline counts too. */
function lineCount(text) {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name)) yield* walk(join(dir, entry.name));
    } else if (entry.isFile()) yield join(dir, entry.name);
  }
}

const categories = Object.fromEntries(CATEGORIES.map((category) => [category, []]));
const contents = {};
let budget = maxBytes;
let omitted = 0;
let totals = { files: 0, lines: 0, bytes: 0 };
for (const file of walk(root)) {
  const path = relative(root, file);
  if (match !== undefined && !path.includes(match)) continue;
  const bytes = statSync(file).size;
  const text = bytes <= 2_000_000 ? readFileSync(file) : undefined;
  const binary = text === undefined || text.subarray(0, 8000).includes(0);
  const lines = binary ? null : lineCount(text.toString('utf8'));
  const category = categoryOf(path);
  categories[category].push({ path, lines, bytes });
  totals = { files: totals.files + 1, lines: totals.lines + (lines ?? 0), bytes: totals.bytes + bytes };
  if (!binary && (content.has('all') || content.has(category))) {
    if (bytes <= budget) {
      contents[path] = text.toString('utf8');
      budget -= bytes;
    } else omitted += 1;
  }
}
for (const list of Object.values(categories)) list.sort((a, b) => a.path.localeCompare(b.path));
const report = {
  audit: 'file-inventory',
  root,
  summary: {
    ...totals,
    by_category: Object.fromEntries(CATEGORIES.map((category) => [category, categories[category].length])),
    contents_included: Object.keys(contents).length,
    contents_omitted: omitted,
    status: 'ok',
  },
  categories,
  ...(content.size > 0 ? { contents } : {}),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.stderr.write(
  `file-inventory: ${totals.files} files, ${totals.lines} lines (` +
    CATEGORIES.filter((category) => categories[category].length > 0)
      .map((category) => `${category} ${categories[category].length}`)
      .join(', ') +
    ')' +
    (content.size > 0 ? `; text of ${Object.keys(contents).length} files included${omitted > 0 ? `, ${omitted} left out (--max-bytes)` : ''}` : '') +
    '\n',
);
