// Fails when src/ has an import cycle, type-only imports included (design.md §1: imports flow
// one way, and a cycle of types is where a runtime cycle starts). Run by `npm run lint`.
// Reads imports with the TypeScript compiler's own pre-processor: no extra dependency.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

/** Every .ts file under `dir`, tests included (a test importing its module is no cycle). */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The files a module imports inside src/, by their .ts path (NodeNext writes `./x.js`). */
function importsOf(file, known) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'))
    .filter((path) => known.has(path));
}

/** Strongly connected components of more than one file (or a file importing itself): Tarjan. */
export function findCycles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const cycles = [];
  const visit = (node) => {
    const entry = { index, low: index, onStack: true };
    index += 1;
    state.set(node, entry);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next);
      if (seen === undefined) {
        visit(next);
        entry.low = Math.min(entry.low, state.get(next).low);
      } else if (seen.onStack) {
        entry.low = Math.min(entry.low, seen.index);
      }
    }
    if (entry.low !== entry.index) return;
    const component = [];
    for (;;) {
      const member = stack.pop();
      state.get(member).onStack = false;
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component);
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

export function importGraph(dir) {
  const files = sources(dir);
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file, known)]));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const cycles = findCycles(importGraph(src));
  for (const cycle of cycles) {
    const names = cycle.map((file) => relative(root, file)).sort();
    console.error(`import cycle: ${names.join(' ↔ ')}`);
  }
  if (cycles.length > 0) {
    console.error(`${cycles.length} import cycle(s) in src/: move the shared types down a layer.`);
    process.exitCode = 1;
  }
}
