// ralph's own cost per iteration (issue 3 "Performance"; design.md §6): `ralph run -n 200
// --pause 0` against an instant fake agent (test/fixtures/bin/claude replaying a three-line
// init/text/result stream; it marks nothing, so the loop runs to the limit). The agent's time is
// taken out twice over: by the durationMs ralph records per iteration, and by timing the same fake
// call run alone. Targets: ≤ 10 ms median overhead per iteration, peak RSS ≤ 120 MB.
// Run after `npm run build`: `node bench/loop-overhead.bench.mjs [iterations]`.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { makeBenchLoop } from './bench-loop.mjs';
import { delimiter, join } from 'node:path';

const ITERATIONS = Number(process.argv[2] ?? 200);
const STANDALONE_RUNS = 50;
const ROOT = new URL('..', import.meta.url).pathname;
// RALPH_BENCH_BIN compares another build (e.g. an experiment) on the same workload.
const BIN = process.env.RALPH_BENCH_BIN ?? join(ROOT, 'dist/cli/bin.cjs');
const FAKE_BIN = join(ROOT, 'test/fixtures/bin');
const INSTANT = join(ROOT, 'test/fixtures/agent/instant.jsonl');
if (!existsSync(BIN)) {
  process.stderr.write('dist/cli/bin.cjs is missing: run `npm run build` first\n');
  process.exit(1);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-bench-loop-')));

/** A fresh loop directory with one story the fake agent never finishes. */
function makeLoop(name, env) {
  const {
    repo,
    dir,
    scripts,
    env: loopEnv,
  } = makeBenchLoop({
    root,
    name,
    env,
    bin: BIN,
    story: { title: 'Never finished', description: 'The fake agent never marks this story' },
  });
  copyFileSync(INSTANT, join(scripts, 'default.jsonl'));
  return { repo, dir, scripts, env: loopEnv };
}

/** Peak RSS (VmHWM) of one process, polled from /proc until it exits; undefined off Linux. */
function watchPeakRss(pid) {
  let peakKb;
  const read = () => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb ?? 0, Number(match[1]));
    } catch {
      // gone, or no /proc
    }
  };
  const timer = setInterval(read, 10);
  return {
    stop() {
      clearInterval(timer);
      return peakKb;
    },
    read,
  };
}

function runLoop(loop) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const startedNs = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [BIN, 'run', '-n', String(ITERATIONS), '--pause', '0', '--skip-preflight'],
      { cwd: loop.repo, env: loop.env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const rss = watchPeakRss(child.pid);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    // 'exit' fires before the process is reaped… but /proc/<pid> of an exited process no longer
    // reports VmHWM, so the last poll before exit is the figure (every 10 ms).
    child.on('exit', (code) => {
      const wallMs = Number(process.hrtime.bigint() - startedNs) / 1e6;
      const peakKb = rss.stop();
      if (code !== 1) reject(new Error(`ralph run exited ${code}: ${stderr}`));
      else resolve({ started, wallMs, peakKb });
    });
  });
}

const median = (values) => quantile(values, 0.5);
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The fake agent alone: the same argv and environment ralph gave its first call. */
function standaloneFake(loop) {
  const { argv } = JSON.parse(readFileSync(join(loop.scripts, 'argv-1.json'), 'utf8'));
  const scripts = join(loop.scripts, 'standalone');
  mkdirSync(scripts);
  copyFileSync(INSTANT, join(scripts, 'default.jsonl'));
  const env = { ...loop.env, FAKE_CLAUDE_SCRIPT_DIR: scripts };
  const times = [];
  for (let i = 0; i < STANDALONE_RUNS; i++) {
    const start = process.hrtime.bigint();
    const result = spawnSync(join(FAKE_BIN, 'claude'), argv, { cwd: loop.repo, env });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.status !== 0) throw new Error(`fake claude exited ${result.status}`);
  }
  return median(times);
}

function analyse(loop, run) {
  const events = readFileSync(join(loop.dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const at = (event) => Date.parse(event.at);
  const starts = events.filter((event) => event.type === 'iteration_started');
  const finishes = events.filter((event) => event.type === 'iteration_finished');
  if (starts.length !== ITERATIONS || finishes.length !== ITERATIONS) {
    throw new Error(`expected ${ITERATIONS} iterations, events.jsonl has ${starts.length}`);
  }
  // One cycle = iteration_started to the next iteration_started; the agent's share of it is the
  // durationMs ralph measured around the process (spawn to close).
  const cycles = [];
  const overheads = [];
  for (let i = 0; i + 1 < starts.length; i++) {
    const cycle = at(starts[i + 1]) - at(starts[i]);
    cycles.push(cycle);
    overheads.push(cycle - finishes[i].durationMs);
  }
  const agentTotal = finishes.reduce((sum, event) => sum + event.durationMs, 0);
  const runStarted = events.find((event) => event.type === 'run_started');
  return {
    startupMs: at(runStarted) - run.started,
    cycleMedian: median(cycles),
    agentMedian: median(finishes.map((event) => event.durationMs)),
    overheadMedian: median(overheads),
    overheadP95: quantile(overheads, 0.95),
    overheadMean: (run.wallMs - agentTotal) / ITERATIONS,
  };
}

function envVariant(withCa) {
  const env = {
    ...process.env,
    PATH: `${FAKE_BIN}${delimiter}${process.env.PATH ?? ''}`,
    HOME: join(root, 'home'),
    NO_COLOR: '1',
    // An agent that never progresses is exactly what the circuit breaker stops (after 3) and
    // 200 calls exceed the default 100 per hour: both off, so the loop itself is what is timed.
    // (Builds without these settings ignore the variables.)
    RALPH_CIRCUIT_BREAKER_NO_PROGRESS_THRESHOLD: '0',
    RALPH_RATE_LIMIT_CALLS_PER_HOUR: '0',
  };
  delete env.CLAUDECODE;
  if (!withCa) delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

mkdirSync(join(root, 'home'));
const ms = (value) => `${value.toFixed(1)} ms`;
process.stdout.write(
  `ralph run -n ${ITERATIONS} --pause 0 with an instant fake agent (node ${process.version})\n`,
);
for (const withCa of [true, false]) {
  const variant = withCa
    ? `as is (NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? 'unset'})`
    : 'env -u NODE_EXTRA_CA_CERTS';
  const loop = makeLoop(withCa ? 'with-ca' : 'without-ca', envVariant(withCa));
  const run = await runLoop(loop);
  const figures = analyse(loop, run);
  const fake = standaloneFake(loop);
  const byStandalone = (run.wallMs - figures.startupMs - ITERATIONS * fake) / ITERATIONS;
  const row = (label, value) => `  ${label.padEnd(52)} ${value}`;
  process.stdout.write(
    [
      `\n${variant}`,
      row('total wall time', ms(run.wallMs)),
      row('start-up (spawn → run_started)', ms(figures.startupMs)),
      row('per iteration, median (events.jsonl)', ms(figures.cycleMedian)),
      row("agent process, median (ralph's durationMs)", ms(figures.agentMedian)),
      row('agent process run alone, median', ms(fake)),
      row(
        'ralph overhead per iteration, median',
        `${ms(figures.overheadMedian)} (p95 ${ms(figures.overheadP95)}; target ≤ 10 ms)`,
      ),
      row('ralph overhead, (wall − Σ durationMs) / n', ms(figures.overheadMean)),
      row('ralph overhead, (wall − start-up − n × alone) / n', ms(byStandalone)),
      row(
        'peak RSS (VmHWM)',
        `${run.peakKb === undefined ? 'n/a (no /proc)' : `${(run.peakKb / 1024).toFixed(1)} MB`} (target ≤ 120 MB)`,
      ),
      '',
    ].join('\n'),
  );
}
rmSync(root, { recursive: true, force: true });
