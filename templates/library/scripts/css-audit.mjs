#!/usr/bin/env node
// css-audit: which CSS custom properties (--name) the code uses without defining them, and which
// it defines but never uses. One call instead of a grep per variable.
//
//   node css-audit.mjs [DIR...]        (default: the current directory)
//
// stdout: one JSON report; stderr: a short summary for people. Exit 0 when every variable used is
// defined, 1 when some are not, 2 on a usage error. Node 18+, no dependencies.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';

const SKIP = new Set(['node_modules', '.git', 'dist', 'build', 'coverage', '.next', '.ralph']);
const EXTENSIONS = new Set([
  '.css', '.scss', '.sass', '.less', '.html', '.htm', '.jsx', '.tsx', '.js', '.ts', '.vue',
  '.svelte', '.astro', '.jinja', '.jinja2', '.j2', '.njk', '.hbs', '.erb', '.php',
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

const roots = process.argv.slice(2);
if (roots.some((root) => root.startsWith('-'))) {
  process.stderr.write('usage: css-audit.mjs [DIR...]\n');
  process.exit(2);
}
const defined = new Map();
const used = new Map();
const withFallback = new Set();
let scanned = 0;
const note = (map, name, where) => {
  if (!map.has(name)) map.set(name, []);
  map.get(name).push(where);
};
for (const root of roots.length > 0 ? roots : ['.']) {
  const files = statSync(root).isDirectory() ? [...walk(root)] : [root];
  for (const file of files) {
    scanned += 1;
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      const where = `${relative('.', file)}:${index + 1}`;
      for (const match of line.matchAll(/(?<![\w-])(--[A-Za-z0-9_-]+)\s*:/g)) {
        note(defined, match[1], where);
      }
      // JS can define them too: style.setProperty('--x', …).
      for (const match of line.matchAll(/setProperty\(\s*['"](--[A-Za-z0-9_-]+)['"]/g)) {
        note(defined, match[1], where);
      }
      for (const match of line.matchAll(/var\(\s*(--[A-Za-z0-9_-]+)\s*(,)?/g)) {
        note(used, match[1], where);
        if (match[2] === ',') withFallback.add(match[1]);
      }
    });
  }
}
const undefinedNames = [...used.keys()].filter((name) => !defined.has(name)).sort();
const unused = [...defined.keys()].filter((name) => !used.has(name)).sort();
const report = {
  audit: 'css-variables',
  summary: {
    files_scanned: scanned,
    variables_used: used.size,
    variables_defined: defined.size,
    variables_undefined: undefinedNames.length,
    variables_unused: unused.length,
    status: undefinedNames.length === 0 ? 'pass' : 'fail',
  },
  undefined: undefinedNames,
  undefined_with_fallback: undefinedNames.filter((name) => withFallback.has(name)),
  unused,
  used_at: Object.fromEntries(undefinedNames.map((name) => [name, used.get(name)])),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.stderr.write(
  `css-audit: ${used.size} variables used, ${defined.size} defined, ${undefinedNames.length} undefined` +
    `${undefinedNames.length > 0 ? ` (${undefinedNames.join(', ')})` : ''}, ${unused.length} unused\n`,
);
process.exitCode = undefinedNames.length === 0 ? 0 : 1;
