// Agent output throughput (issue 3 "Performance"): one `ralph run -n 1` iteration whose agent
// prints 300 MB of real stream-json — the lines of a real Claude Code transcript
// (shared/corpus/transcripts/hybrid33-iteration-12.jsonl, read by path) over and over, then one
// result line. ralph logs every byte, parses every line and reports tool calls and texts as
// events. Targets: ≥ 100 MB/s, peak RSS ≤ 150 MB and flat (lines streamed, never buffered whole).
// Run after `npm run build`: `node bench/stream.bench.mjs [megabytes] [--profile]`.
// --profile runs ralph under `node --cpu-prof` and prints the functions with the most self time.
// The same file is the fake agent: `node bench/stream.bench.mjs --agent BYTES` prints the stream.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { makeBenchLoop } from './bench-loop.mjs';
import { delimiter, join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const SELF = new URL(import.meta.url).pathname;
const CORPUS = process.env.RALPH_CORPUS_DIR ?? join(ROOT, '../shared/corpus');
const TRANSCRIPT = join(CORPUS, 'transcripts/hybrid33-iteration-12.jsonl');

/** The transcript's JSON lines, split into the body (repeated) and its result line (printed last). */
function transcriptLines() {
  const lines = readFileSync(TRANSCRIPT, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{')); // the orchestrator's "=== Iteration 12 ===" trailer lines go
  const isResult = (line) => JSON.parse(line).type === 'result';
  return { body: lines.filter((line) => !isResult(line)), result: lines.find(isResult) };
}

/** Fake-agent mode: print at least `bytes` of stream-json to stdout, blocking on a full pipe. */
function agent(bytes) {
  const { body, result } = transcriptLines();
  const block = Buffer.from(`${body.join('\n')}\n`);
  let written = 0;
  const write = (buffer) => {
    for (let offset = 0; offset < buffer.length;) {
      try {
        offset += writeSync(1, buffer, offset);
      } catch (error) {
        if (error.code !== 'EAGAIN') throw error;
      }
    }
    written += buffer.length;
  };
  while (written < bytes) write(block);
  write(Buffer.from(`${result}\n`));
}

if (process.argv[2] === '--agent') {
  agent(Number(process.argv[3]));
  process.exit(0);
}

const MEGABYTES = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 300);
const PROFILE = process.argv.includes('--profile');
// RALPH_BENCH_BIN compares another build (e.g. an experiment) on the same workload.
const BIN = process.env.RALPH_BENCH_BIN ?? join(ROOT, 'dist/cli/bin.cjs');
const FAKE_BIN = join(ROOT, 'test/fixtures/bin');
for (const [file, hint] of [
  [BIN, 'run `npm run build` first'],
  [TRANSCRIPT, 'the shared corpus must sit beside the project'],
]) {
  if (!existsSync(file)) {
    process.stderr.write(`${file} is missing: ${hint}\n`);
    process.exit(1);
  }
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-bench-stream-')));

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
    story: { title: 'A long iteration', description: 'The agent talks a lot' },
  });
  // The fake `claude` hands each call to default.sh, which becomes this file in agent mode.
  writeFileSync(
    join(scripts, 'default.sh'),
    `exec '${process.execPath}' '${SELF}' --agent ${MEGABYTES * 1e6}\n`,
  );
  return { repo, dir, env: loopEnv };
}

/** Samples a process's RSS and high-water mark from /proc while it runs. */
function watchMemory(pid) {
  const samples = [];
  let peakKb;
  const timer = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      const rss = /VmRSS:\s+(\d+) kB/.exec(status);
      if (hwm) peakKb = Math.max(peakKb ?? 0, Number(hwm[1]));
      if (rss) samples.push(Number(rss[1]));
    } catch {
      // exited, or no /proc
    }
  }, 50);
  return () => {
    clearInterval(timer);
    return { peakKb, samples };
  };
}

function runRalph(loop, nodeArgs) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [...nodeArgs, BIN, 'run', '-n', '1', '--pause', '0', '--skip-preflight'],
      { cwd: loop.repo, env: loop.env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const stop = watchMemory(child.pid);
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const memory = stop();
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 1) reject(new Error(`ralph run exited ${code}: ${stderr}`));
      else resolve({ wallMs, ...memory });
    });
  });
}

/** The generator alone, read and discarded by a plain pipe reader: the ceiling for ralph. */
function generatorAlone() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [SELF, '--agent', String(MEGABYTES * 1e6)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let bytes = 0;
    child.stdout.on('data', (chunk) => (bytes += chunk.length));
    child.on('error', reject);
    child.on('close', () => {
      resolve({ bytes, ms: Number(process.hrtime.bigint() - start) / 1e6 });
    });
  });
}

/** Self time per function from a .cpuprofile, the top entries. */
function topFunctions(profileFile, count = 15) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const { functionName, url, lineNumber } = node.callFrame;
    const where =
      url === '' ? '' : `${relative(ROOT, url.replace('file://', ''))}:${lineNumber + 1}`;
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    selfUs.set(key, (selfUs.get(key) ?? 0) + (deltas[i] ?? 0));
  }
  const total = [...selfUs.values()].reduce((sum, us) => sum + us, 0);
  return [...selfUs.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, us]) =>
        `    ${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${key}`,
    );
}

function envVariant(withCa) {
  const env = {
    ...process.env,
    PATH: `${FAKE_BIN}${delimiter}${process.env.PATH ?? ''}`,
    HOME: join(root, 'home'),
    NO_COLOR: '1',
  };
  delete env.CLAUDECODE;
  if (!withCa) delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

mkdirSync(join(root, 'home'));
const mbps = (bytes, ms) => `${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`;
const mb = (kb) => (kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(1)} MB`);
process.stdout.write(
  `ralph run -n 1, one agent printing ${MEGABYTES} MB of stream-json (node ${process.version})\n`,
);
const alone = await generatorAlone();
process.stdout.write(
  `\nthe fake agent alone into a plain pipe reader: ${mbps(alone.bytes, alone.ms)}\n`,
);

for (const withCa of PROFILE ? [true] : [true, false]) {
  const variant = withCa
    ? `as is (NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? 'unset'})`
    : 'env -u NODE_EXTRA_CA_CERTS';
  const loop = makeLoop(withCa ? 'with-ca' : 'without-ca', envVariant(withCa));
  const profileDir = join(root, 'profile');
  const run = await runRalph(loop, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const events = readFileSync(join(loop.dir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const started = events.find((event) => event.type === 'iteration_started');
  const finished = events.find((event) => event.type === 'iteration_finished');
  // The iteration ends when ralph has handled every line (reporters included), which can be
  // later than the agent's exit: iteration_started → iteration_finished is the figure that counts.
  const iterationMs = Date.parse(finished.at) - Date.parse(started.at);
  const logBytes = statSync(join(loop.dir, 'logs/iteration-1-attempt-1.jsonl')).size;
  const counts = {};
  for (const event of events) counts[event.type] = (counts[event.type] ?? 0) + 1;
  // RSS after the first tenth of the run against its maximum: "flat" means these stay close.
  const settled = run.samples.slice(Math.floor(run.samples.length / 10));
  process.stdout.write(
    [
      `\n${variant}${PROFILE ? ', under --cpu-prof' : ''}`,
      `  agent output logged          ${(logBytes / 1e6).toFixed(1)} MB (${finished.outcome}, session ${finished.sessionId})`,
      `  iteration (events.jsonl)     ${(iterationMs / 1000).toFixed(2)} s → ${mbps(logBytes, iterationMs)}  (target ≥ 100 MB/s)`,
      `  agent process (durationMs)   ${(finished.durationMs / 1000).toFixed(2)} s → ${mbps(logBytes, finished.durationMs)}`,
      `  ralph wall time              ${(run.wallMs / 1000).toFixed(2)} s (start-up and finish included)`,
      `  peak RSS (VmHWM)             ${mb(run.peakKb)}  (target ≤ 150 MB)`,
      `  RSS after the first 10 %     min ${mb(Math.min(...settled))}, max ${mb(Math.max(...settled))} (${run.samples.length} samples)`,
      `  events                       ${Object.entries(counts)
        .map(([type, n]) => `${type} ${n}`)
        .join(', ')}`,
      '',
    ].join('\n'),
  );
  if (PROFILE) {
    const [file] = readdirSync(profileDir);
    process.stdout.write(`  self time by function (${join(profileDir, file)}):\n`);
    process.stdout.write(`${topFunctions(join(profileDir, file)).join('\n')}\n`);
  }
}
if (!PROFILE) rmSync(root, { recursive: true, force: true });
