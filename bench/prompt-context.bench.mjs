// The prompt's context budget (issue 14): time to build one iteration's prompt when progress.txt
// has grown to 2 MB and 20 MB, reading only its head and tail (what ralph does), against reading
// the whole file and fitting the same excerpt (what it would cost without the tail read).
// Run after `npm run build`: `node bench/prompt-context.bench.mjs [runs]`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const { iterationPrompt } = await import(join(ROOT, 'dist/core/iteration-prompt.js'));
const { splitProgress } = await import(join(ROOT, 'dist/core/progress-excerpt.js'));
const { progressSection } = await import(join(ROOT, 'dist/core/progress-section.js'));
const runs = Number(process.argv[2] ?? 50);

function progress(bytes) {
  const parts = ['# Progress Log: bench', '', '## Codebase Patterns', '- integer cents', ''];
  let size = 0;
  for (let n = 1; size < bytes; n += 1) {
    const entry = `---\nIteration: ${n}\nLearnings:\n${'  - a learning line of typical length, seventy characters or so.\n'.repeat(40)}\n`;
    parts.push(entry);
    size += entry.length;
  }
  return parts.join('\n');
}

const story = {
  id: 'STORY-001',
  title: 'story',
  description: 'do it',
  acceptanceCriteria: ['works'],
  priority: 1,
  passes: false,
};
for (const megabytes of [2, 20]) {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-prompt-bench-'));
  writeFileSync(join(dir, 'progress.txt'), progress(megabytes * 1024 * 1024));
  const options = {
    cwd: dir,
    loopDir: dir,
    taskListFile: join(dir, 'prd.json'),
    promptTemplate: 'Do one story.',
    hasSpec: false,
    hasSpecsDir: false,
    tokenBudget: 16000,
  };
  const time = async (build) => {
    const started = performance.now();
    let prompt = '';
    for (let i = 0; i < runs; i += 1) prompt = await build();
    return { ms: (performance.now() - started) / runs, chars: prompt.length };
  };
  const tail = await time(async () => (await iterationPrompt(options, story)).prompt);
  const whole = await time(async () => {
    const text = readFileSync(join(dir, 'progress.txt'), 'utf8');
    const excerpt = { ...splitProgress(text, true), totalBytes: text.length };
    return progressSection(excerpt, 'progress.txt').render(60_000);
  });
  process.stdout.write(
    `progress.txt ${megabytes} MB: head+tail ${tail.ms.toFixed(2)} ms/prompt (${tail.chars} chars, ≤ 64000), whole-file read ${whole.ms.toFixed(2)} ms/prompt\n`,
  );
  rmSync(dir, { recursive: true, force: true });
}
