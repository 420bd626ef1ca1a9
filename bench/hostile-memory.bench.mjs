// Memory with hostile input (issue 15, item 4): peak RSS of ralph when the agent prints one
// 200 MB stream line, and of `ralph run`, `status`, `monitor --once`, `list` and `inspect` on a
// 10,000-story task list. Targets: ≤ 150 MB with the long line, ≤ 200 MB with the big task list.
// Printed, never asserted. Run after `npm run build`: `node bench/hostile-memory.bench.mjs
// [line megabytes] [stories]`. The same file is the fake agent: `--agent BYTES` prints the line.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { makeBenchLoop } from './bench-loop.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;

function write(buffer) {
  for (let offset = 0; offset < buffer.length;) {
    try {
      offset += writeSync(1, buffer, offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
    }
  }
}

/** Fake-agent mode: an init line, one assistant text line of `bytes`, a result line. */
function agent(bytes) {
  const session = 'bench-long-line';
  write(
    Buffer.from(
      `${JSON.stringify({ type: 'system', subtype: 'init', session_id: session, model: 'claude-sonnet-4-5' })}\n`,
    ),
  );
  const head = Buffer.from(
    `{"type":"assistant","session_id":"${session}","message":{"role":"assistant","content":[{"type":"text","text":"`,
  );
  write(head);
  const block = Buffer.alloc(1 << 20, 'a');
  for (let written = 0; written < bytes; written += block.length) write(block);
  write(Buffer.from('"}]}}\n'));
  write(
    Buffer.from(
      `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, session_id: session, result: 'done', total_cost_usd: 0.01, num_turns: 1, duration_ms: 1 })}\n`,
    ),
  );
}

if (process.argv[2] === '--agent') {
  agent(Number(process.argv[3]));
  process.exit(0);
}

const numbers = process.argv
  .slice(2)
  .filter((arg) => /^\d+$/.test(arg))
  .map(Number);
const LINE_MB = numbers[0] ?? 200;
const STORIES = numbers[1] ?? 10_000;
const BIN = process.env.RALPH_BENCH_BIN ?? join(ROOT, 'dist/cli/bin.js');
if (!existsSync(BIN)) {
  process.stderr.write(`${BIN} is missing: run \`npm run build\` first\n`);
  process.exit(1);
}
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-bench-hostile-')));
mkdirSync(join(root, 'home'));
const env = {
  ...process.env,
  PATH: `${join(ROOT, 'test/fixtures/bin')}${delimiter}${process.env.PATH ?? ''}`,
  HOME: join(root, 'home'),
  NO_COLOR: '1',
};
delete env.CLAUDECODE;

/** Runs `ralph args` in `cwd`, sampling its VmHWM; resolves with the peak in MB. */
function peakRss(cwd, loopEnv, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: loopEnv,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let peakKb = 0;
    const sample = () => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      } catch {
        // exited
      }
    };
    const timer = setInterval(sample, 20);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ mb: peakKb / 1024, code, stderr: stderr.slice(0, 300) });
    });
  });
}

const show = (label, result) =>
  process.stdout.write(
    `  ${label.padEnd(34)} peak RSS ${result.mb.toFixed(1).padStart(7)} MB  (exit ${result.code})\n`,
  );

process.stdout.write(
  `peak RSS of ralph with hostile input (node ${process.version}); targets: ≤ 150 MB with the line, ≤ 200 MB with the stories\n`,
);

// One long line.
{
  const loop = makeBenchLoop({
    root,
    name: 'long-line',
    env,
    bin: BIN,
    story: { title: 'Talks', description: 'one long line' },
  });
  writeFileSync(
    join(loop.scripts, 'default.sh'),
    `exec '${process.execPath}' '${SELF}' --agent ${LINE_MB * 1024 * 1024}\n`,
  );
  const run = await peakRss(loop.repo, loop.env, [
    'run',
    '-n',
    '1',
    '--pause',
    '0',
    '--skip-preflight',
  ]);
  show(`run -n 1, one ${LINE_MB} MB line`, run);
  const logs = await peakRss(loop.repo, loop.env, ['logs', '.ralph/feature-bench']);
  show(`logs of that iteration`, logs);
  const log = '.ralph/feature-bench/logs/iteration-1-attempt-1.jsonl';
  show(`inspect of that iteration`, await peakRss(loop.repo, loop.env, ['inspect', log]));
  rmSync(join(root, 'long-line'), { recursive: true, force: true });
}

// A big task list.
{
  const loop = makeBenchLoop({
    root,
    name: 'big-list',
    env,
    bin: BIN,
    story: { title: 'x', description: 'x' },
  });
  const userStories = Array.from({ length: STORIES }, (_, index) => ({
    id: `STORY-${String(index + 1).padStart(5, '0')}`,
    title: `Story ${index + 1} with a title of ordinary length`,
    description: `The ${index + 1}th slice of a large feature, described in a sentence or two like a planner writes it.`,
    acceptanceCriteria: [
      'The first criterion holds',
      'The second criterion holds',
      'Unit tests pass',
    ],
    priority: index + 1,
    passes: index % 3 === 0,
    notes: '',
  }));
  writeFileSync(
    join(loop.dir, 'prd.json'),
    `${JSON.stringify({ description: 'bench', createdAt: '2026-11-22T00:00:00Z', userStories }, null, 2)}\n`,
  );
  writeFileSync(
    join(loop.scripts, 'default.jsonl'),
    `${JSON.stringify({ type: 'result', subtype: 'success', is_error: false, session_id: 's', result: 'ok', total_cost_usd: 0.01, num_turns: 1, duration_ms: 1 })}\n`,
  );
  const size = (readFileSync(join(loop.dir, 'prd.json')).length / 1e6).toFixed(1);
  for (const [label, args] of [
    [
      `run -n 1, ${STORIES} stories (${size} MB)`,
      ['run', '-n', '1', '--pause', '0', '--skip-preflight'],
    ],
    ['status', ['status', '.ralph/feature-bench']],
    ['monitor --once', ['monitor', '--once', '.ralph/feature-bench']],
    ['list', ['list']],
    ['validate', ['validate', '.ralph/feature-bench']],
  ]) {
    show(label, await peakRss(loop.repo, loop.env, args));
  }
}
rmSync(root, { recursive: true, force: true });
