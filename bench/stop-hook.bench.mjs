// End-to-end cost of one `ralph stop-hook` invocation, as Claude Code pays it at every stop:
// process start, reading the hook JSON, the loop files, the decision and the atomic writes.
// Run after `npm run build`: `npm run bench` (or `node bench/stop-hook.bench.mjs [runs]`).
// Measured as the environment is and without NODE_EXTRA_CA_CERTS (design.md §6: that variable
// roughly doubles Node's start-up on these machines).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.argv[2] ?? 50);
const BIN = new URL('../dist/cli/bin.cjs', import.meta.url).pathname;
if (!existsSync(BIN)) {
  process.stderr.write('dist/cli/bin.cjs is missing: run `npm run build` first\n');
  process.exit(1);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-bench-stop-hook-')));
const project = join(root, 'project');
const home = join(root, 'home');
mkdirSync(home);
execFileSync('git', ['init', '-q', project]);
const claude = join(project, '.claude');
mkdirSync(claude);

// A realistic prompt: a couple of kilobytes of task, criteria and instructions.
const PROMPT = [
  'Build a REST API for todos in src/server.ts (node:http, no frameworks).',
  '',
  'Success criteria (every one must hold, and be verified):',
  ...Array.from(
    { length: 30 },
    (_, i) => `- criterion ${i + 1}: \`npm test\` covers endpoint ${i + 1} and it returns 200`,
  ),
  '',
  'Every iteration: read .claude/ralph-journal-bench001.md, continue, append what you tried.',
  'Only when every criterion is met and verified, output <promise>ALL TESTS PASS</promise>.',
  '',
].join('\n');

function stateFile(session, iteration) {
  return [
    '---',
    'loop_id: "bench001"',
    `session_id: "${session}"`,
    'active: true',
    `iteration: ${iteration}`,
    'max_iterations: 0',
    'completion_promise: "ALL TESTS PASS"',
    'started_at: "2026-01-01T00:00:00.000Z"',
    '---',
    '',
    PROMPT,
  ].join('\n');
}

const INPUT = JSON.stringify({
  session_id: 'bench-session',
  transcript_path: join(root, 'transcript.jsonl'),
  cwd: project,
  prompt_id: 'p',
  permission_mode: 'default',
  effort: { level: 'high' },
  hook_event_name: 'Stop',
  stop_hook_active: true,
  last_assistant_message: 'I fixed two endpoints; three tests still fail.',
  background_tasks: [],
  session_crons: [],
});

const SCENARIOS = {
  'no loop (every stop in a project without one)': () => {
    rmSync(join(claude, 'ralph-loop-bench001.local.md'), { force: true });
  },
  "another session's loop (read, untouched)": () => {
    writeFileSync(join(claude, 'ralph-loop-bench001.local.md'), stateFile('other-session', 1));
  },
  'own loop: block + iteration write + journal': () => {
    writeFileSync(join(claude, 'ralph-loop-bench001.local.md'), stateFile('bench-session', 1));
    rmSync(join(claude, 'ralph-journal-bench001.md'), { force: true });
  },
};

function envVariant(withCa) {
  const env = { ...process.env, HOME: home };
  if (!withCa) delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

function measure(args, env, input) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, {
      env,
      input,
      cwd: project,
      encoding: 'utf8',
    });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr}`);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
  return { median: at(0.5), p95: at(0.95), min: times[0] };
}

const rows = [];
for (const withCa of [true, false]) {
  const env = envVariant(withCa);
  const variant = withCa
    ? `as is (NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? 'unset'})`
    : 'env -u NODE_EXTRA_CA_CERTS';
  rows.push({ variant, scenario: 'baseline: node -e ""', ...measure(['-e', ''], env, '') });
  for (const [scenario, prepare] of Object.entries(SCENARIOS)) {
    prepare();
    // One untimed run warms the file cache; the own-loop state advances every run (max 0, 50 < 500).
    spawnSync(process.execPath, [BIN, 'stop-hook'], { env, input: INPUT, cwd: project });
    rows.push({ variant, scenario, ...measure([BIN, 'stop-hook'], env, INPUT) });
  }
}

const fmt = (ms) => `${ms.toFixed(1)} ms`.padStart(9);
process.stdout.write(
  `ralph stop-hook, end to end per invocation (${RUNS} runs each, node ${process.version})\n`,
);
let last = '';
for (const row of rows) {
  if (row.variant !== last) process.stdout.write(`\n${row.variant}\n`);
  last = row.variant;
  process.stdout.write(
    `  ${row.scenario.padEnd(48)} median ${fmt(row.median)}  p95 ${fmt(row.p95)}  min ${fmt(row.min)}\n`,
  );
}
rmSync(root, { recursive: true, force: true });
