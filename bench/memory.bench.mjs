// What memories cost per iteration (issue 14): before each iteration ralph reads the project's and
// the feature's memories.md and builds the prompt's memories section; after it, it tidies what the
// agent appended. Both files get N entries (four categories, ten tags), the story asks for one tag.
// Prints the mean time of each step and the section's size, for N = 0, 100 and 2000 (or the
// counts given). Run after `npm run build`: `node bench/memory.bench.mjs [N...]`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DIST = new URL('../dist/', import.meta.url);
const { readMemorySection } = await import(new URL('core/memory-section.js', DIST).href);
const { normaliseMemoryFile } = await import(new URL('state/memory-file.js', DIST).href);

const CATEGORIES = ['Patterns', 'Decisions', 'Fixes', 'Context'];
const RUNS = 20;

function memoriesText(count) {
  const lines = ['# Memories', ''];
  for (const category of CATEGORIES) {
    lines.push(`## ${category}`, '');
    for (let index = 0; index < count / CATEGORIES.length; index += 1) {
      const day = String((index % 28) + 1).padStart(2, '0');
      lines.push(
        `- [2026-01-${day}T00:00:00Z] [tags: t${index % 10},x] learning ${index} ${'z'.repeat(40)}`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

async function mean(step) {
  for (let index = 0; index < 3; index += 1) await step();
  const started = performance.now();
  for (let index = 0; index < RUNS; index += 1) await step();
  return (performance.now() - started) / RUNS;
}

const counts = process.argv.slice(2).map(Number);
for (const count of counts.length > 0 ? counts : [0, 100, 2000]) {
  const root = mkdtempSync(join(tmpdir(), 'ralph-memory-bench-'));
  mkdirSync(join(root, 'feature'));
  const files = {
    project: join(root, 'memories.md'),
    feature: join(root, 'feature', 'memories.md'),
  };
  for (const file of Object.values(files)) writeFileSync(file, memoriesText(count));
  const settings = { tokenBudget: 2000, injection: 'auto', files };
  let chars = 0;
  const section = await mean(async () => {
    chars = (await readMemorySection(settings, { tags: ['t3'] }, (path) => path)).text.length;
  });
  const tidy = await mean(() => normaliseMemoryFile(files.feature, new Date()));
  process.stdout.write(
    `${String(count).padStart(5)} entries a file: section ${section.toFixed(2)} ms (${chars} chars), tidy-up ${tidy.toFixed(2)} ms\n`,
  );
  rmSync(root, { recursive: true, force: true });
}
