// ralph's cost against references measured in the same run (issue 10 item 7; design.md §6):
//   - a minimal bash loop (bench/minimal-loop.sh, the shape of snarktank's: run the agent, look
//     for the completion promise in its output, loop) driving the same instant fake agent;
//   - `node -e 0`, the floor of any node start-up.
// The fake agent (test/fixtures/bin/claude + bench/fake-agent.sh) marks the first open story of
// a 50-story prd.json as passing and prints a three-line stream; once none is open its result
// carries <promise>COMPLETE</promise>. So both loops run 50 iterations, and a one-story run one.
// Figures (medians of REPEATS): wall time of the 50-story run and the 1-story run, the agent alone
// (same argv and environment), then
//   overhead/iteration = (T50 − 50 × agent) / 50;  marginal/iteration = (T50 − T1) / 49 − agent.
// Targets: per-iteration wall (T50 / 50) ≤ 1.5× the bash loop's; one-story run ≤ 4× node -e 0;
// `ralph status` and `ralph list` ≤ 3× node -e 0. Every figure with NODE_EXTRA_CA_CERTS as it is
// and without it (it roughly doubles node's start-up on these machines), and each twice: wall time
// (what the targets are about) and the CPU time of the processes (means), which other work on
// shared cores disturbs far less than the wall clock.
// Run after `npm run build`: `node bench/cost-ratios.bench.mjs [repeats]`.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPEATS = Number(process.argv[2] ?? 3);
const STORIES = 50;
const STARTUP_RUNS = 11;
const ROOT = new URL('..', import.meta.url).pathname;
const BIN = process.env.RALPH_BENCH_BIN ?? join(ROOT, 'dist/cli/bin.cjs');
const FAKE_BIN = join(ROOT, 'test/fixtures/bin');
const BASH_LOOP = join(ROOT, 'bench/minimal-loop.sh');
const FAKE_AGENT = join(ROOT, 'bench/fake-agent.sh');
const PRD = '.ralph/feature-bench/prd.json';
if (!existsSync(BIN)) {
  process.stderr.write(`${BIN} is missing: run \`npm run build\` first\n`);
  process.exit(1);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-bench-cost-')));
mkdirSync(join(root, 'home'));

/** Like `env -i`: only what the tools need, plus NODE_EXTRA_CA_CERTS in the "as is" variant. */
function baseEnv(withCa) {
  const env = {
    PATH: `${FAKE_BIN}:/usr/local/bin:/usr/bin:/bin`,
    HOME: join(root, 'home'),
    NO_COLOR: '1',
    GIT_AUTHOR_NAME: 'bench',
    GIT_AUTHOR_EMAIL: 'bench@example.invalid',
    GIT_COMMITTER_NAME: 'bench',
    GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  };
  if (withCa && process.env.NODE_EXTRA_CA_CERTS !== undefined)
    env.NODE_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
  return env;
}

function prd(stories) {
  const userStories = Array.from({ length: stories }, (_, index) => ({
    id: `STORY-${String(index + 1).padStart(3, '0')}`,
    title: `Story ${index + 1}`,
    description: 'Marked passing by the fake agent',
    acceptanceCriteria: ['It passes'],
    priority: index + 1,
    passes: false,
    notes: '',
  }));
  return `${JSON.stringify({ description: 'bench', createdAt: '2026-11-22T00:00:00Z', userStories }, null, 2)}\n`;
}

/** A template repo per story count: `ralph init`, the prd.json, a prompt for the bash loop. */
function makeTemplate(stories) {
  const repo = join(root, `template-${stories}`);
  execFileSync('git', ['init', '-q', '-b', 'feature/bench', repo]);
  execFileSync(process.execPath, [BIN, 'init'], {
    cwd: repo,
    env: baseEnv(false),
    stdio: 'ignore',
  });
  rmSync(join(repo, '.ralph/feature-bench/spec.md'), { force: true });
  writeFileSync(join(repo, PRD), prd(stories));
  writeFileSync(
    join(repo, 'prompt.md'),
    'Pick the first open story of prd.json, do it, mark it.\n',
  );
  return repo;
}

let copies = 0;
/** A fresh copy of a template with its own fake-agent script folder. */
function fresh(template, env) {
  const repo = join(root, `run-${++copies}`);
  cpSync(template, repo, { recursive: true });
  const scripts = join(root, `fake-${copies}`);
  mkdirSync(scripts);
  copyFileSync(FAKE_AGENT, join(scripts, 'default.sh'));
  // The fake agent's scripts sit outside the repository, which ralph's sandbox (on by default)
  // hides: they are made writable inside it, as a person would for a tool of their own.
  return {
    repo,
    env: {
      ...env,
      FAKE_CLAUDE_SCRIPT_DIR: scripts,
      BENCH_PRD: PRD,
      RALPH_SANDBOX_WRITABLE: scripts,
    },
  };
}

function timed(command, args, options, expectStatus) {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (expectStatus !== undefined && result.status !== expectStatus) {
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return ms;
}

/**
 * CPU time (user + system, ms) of the children this process has waited for so far, from
 * /proc/self/stat (cutime + cstime, 10 ms ticks): the same figures without the wall clock's noise
 * when other work shares the cores. Undefined off Linux.
 */
function childCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100;

/** Runs `block` and returns its children's CPU time in ms (NaN off Linux). */
function cpuOf(block) {
  const before = childCpuMs();
  block();
  const after = childCpuMs();
  return before === undefined || after === undefined ? Number.NaN : after - before;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function storiesLeft(repo) {
  return (readFileSync(join(repo, PRD), 'utf8').match(/"passes": false/g) ?? []).length;
}

/** One loop run on a fresh copy; checks it finished every story. */
function runOnce(kind, template, env, stories) {
  const { repo, env: runEnv } = fresh(template, env);
  const limit = String(stories + 5);
  const ms =
    kind === 'bash'
      ? timed('/bin/bash', [BASH_LOOP, limit], { cwd: repo, env: runEnv }, 0)
      : timed(
          process.execPath,
          [BIN, 'run', '-n', limit, '--pause', '0', '--no-archive'],
          { cwd: repo, env: runEnv },
          0,
        );
  if (storiesLeft(repo) !== 0) throw new Error(`${kind} left stories open in ${repo}`);
  return { ms, repo };
}

/** The fake agent alone, with the argv ralph gave it, on a prd.json that has open stories. */
function agentAlone(template, env) {
  const { repo, env: runEnv } = fresh(template, env);
  const times = [];
  const cpu = cpuOf(() => {
    for (let i = 0; i < STARTUP_RUNS; i++) {
      times.push(
        timed(join(FAKE_BIN, 'claude'), ['-p', '--output-format', 'stream-json', '--verbose'], {
          cwd: repo,
          env: runEnv,
        }),
      );
    }
  });
  return { wall: median(times), cpu: cpu / STARTUP_RUNS };
}

function startup(args, cwd, env) {
  const times = [];
  const cpu = cpuOf(() => {
    for (let i = 0; i < STARTUP_RUNS; i++) {
      times.push(timed(process.execPath, args, { cwd, env }, 0));
    }
  });
  return { wall: median(times), cpu: cpu / STARTUP_RUNS };
}

function measure(withCa, templates) {
  const env = baseEnv(withCa);
  const node = startup(['-e', '0'], root, env);
  const agent = agentAlone(templates[STORIES], env);
  const loops = {};
  let lastRalphRepo;
  for (const kind of ['bash', 'ralph']) {
    const t50 = [];
    const t1 = [];
    let cpu50 = 0;
    let cpu1 = 0;
    for (let i = 0; i < REPEATS; i++) {
      cpu50 += cpuOf(() => {
        const run = runOnce(kind, templates[STORIES], env, STORIES);
        t50.push(run.ms);
        if (kind === 'ralph') lastRalphRepo = run.repo;
      });
      cpu1 += cpuOf(() => t1.push(runOnce(kind, templates[1], env, 1).ms));
    }
    const figures = (T50, T1, agentMs) => ({
      perIteration: T50 / STORIES,
      overhead: (T50 - STORIES * agentMs) / STORIES,
      marginal: (T50 - T1) / (STORIES - 1) - agentMs,
      oneStory: T1,
    });
    loops[kind] = {
      wall: figures(median(t50), median(t1), agent.wall),
      cpu: figures(cpu50 / REPEATS, cpu1 / REPEATS, agent.cpu),
    };
  }
  // status and list on a loop that has run (status.json, events.jsonl, safety.json present).
  const status = startup([BIN, 'status'], lastRalphRepo, env);
  const list = startup([BIN, 'list'], lastRalphRepo, env);
  return { node, agent, loops, status, list };
}

const ms = (value) => `${value.toFixed(1)} ms`.padStart(10);
const ratio = (value, target) =>
  `${value.toFixed(2)}×`.padStart(7) +
  `  (target ≤ ${target}×${value <= target ? ', met' : ', NOT met'})`;

function report(title, m) {
  const row = (label, b, r) => `  ${label.padEnd(34)}${b}${r}`;
  const block = (kind, heading) => {
    const bash = m.loops.bash[kind];
    const ralph = m.loops.ralph[kind];
    const [node, status, list] = [m.node[kind], m.status[kind], m.list[kind]];
    return [
      `  ${heading}: node -e 0 ${ms(node).trim()}; fake agent alone ${ms(m.agent[kind]).trim()}`,
      row('', 'bash loop'.padStart(10), 'ralph'.padStart(10)),
      row('per iteration (T50 / 50)', ms(bash.perIteration), ms(ralph.perIteration)),
      row('overhead / iteration', ms(bash.overhead), ms(ralph.overhead)),
      row('marginal / iteration', ms(bash.marginal), ms(ralph.marginal)),
      row('one-story run', ms(bash.oneStory), ms(ralph.oneStory)),
      row('ralph status', '', ms(status)),
      row('ralph list', '', ms(list)),
      `    per iteration ralph / bash       ${ratio(ralph.perIteration / bash.perIteration, 1.5)}`,
      `    one-story run / node -e 0        ${ratio(ralph.oneStory / node, 4)}`,
      `    ralph status / node -e 0         ${ratio(status / node, 3)}`,
      `    ralph list / node -e 0           ${ratio(list / node, 3)}`,
    ];
  };
  process.stdout.write(
    [
      `\n${title}`,
      ...block('wall', 'wall time (medians; the targets)'),
      ...block('cpu', 'CPU time, user + system (means; steadier when the cores are shared)'),
      '',
    ].join('\n'),
  );
}

process.stdout.write(
  `ralph vs a minimal bash loop and node -e 0: ${STORIES}-story prd.json, instant fake agent, ` +
    `env -i-like environment, medians of ${REPEATS} (node ${process.version})\n`,
);
try {
  const templates = { 1: makeTemplate(1), [STORIES]: makeTemplate(STORIES) };
  report(
    `as is (NODE_EXTRA_CA_CERTS=${process.env.NODE_EXTRA_CA_CERTS ?? 'unset'})`,
    measure(true, templates),
  );
  report('env -u NODE_EXTRA_CA_CERTS', measure(false, templates));
} finally {
  rmSync(root, { recursive: true, force: true });
}
