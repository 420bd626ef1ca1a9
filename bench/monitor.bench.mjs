// The monitors' costs: the web dashboard's event fan-out (events per second from events.jsonl
// to 20 SSE clients), the terminal monitor's CPU while nothing happens, and what lazy loading
// saves at start-up (`ralph status` never loads ink/React; `ralph monitor --once` does).
// Run after `npm run build`: `node bench/monitor.bench.mjs [events]`.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const EVENTS = Number(process.argv[2] ?? 5000);
const print = (text) => process.stdout.write(`${text}\n`);
const CLIENTS = 20;
const DIST = new URL('../dist/', import.meta.url).pathname;
const BIN = join(DIST, 'cli/bin.cjs');
if (!existsSync(BIN)) {
  process.stderr.write('dist/cli/bin.cjs is missing: run `npm run build` first\n');
  process.exit(1);
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-bench-monitor-')));
const repo = join(root, 'repo');
execFileSync('git', ['init', '-q', '-b', 'feature/bench', repo]);
const loop = join(repo, '.ralph', 'feature-bench');
mkdirSync(join(loop, 'logs'), { recursive: true });
writeFileSync(
  join(loop, 'prd.json'),
  '{"userStories":[{"id":"STORY-001","title":"t","passes":false}]}\n',
);
const events = join(loop, 'events.jsonl');
const at = () => new Date().toISOString();
writeFileSync(
  events,
  `${JSON.stringify({ type: 'run_started', at: at(), loopDir: loop, feature: 'feature/bench', resumedAfterIteration: 0, maxIterations: 100, storiesTotal: 1, storiesPassing: 0, costUsd: 0 })}\n` +
    `${JSON.stringify({ type: 'iteration_started', at: at(), iteration: 1, attempt: 1, story: { id: 'STORY-001', title: 't' }, model: 'sonnet', logFile: join(loop, 'logs/iteration-1-attempt-1.jsonl'), promptBytes: 100 })}\n`,
);

// --- 1. SSE fan-out -----------------------------------------------------------------------
const { startDashboard } = await import(join(DIST, 'monitor/web/server.js'));
const dashboard = await startDashboard({
  repoRoot: repo,
  dirs: [],
  host: '127.0.0.1',
  port: 0,
  token: undefined,
  renderLog: (line) => [line],
});
const id = encodeURIComponent('.ralph/feature-bench');
const last = EVENTS + 2;
const clients = await Promise.all(
  Array.from(
    { length: CLIENTS },
    () =>
      new Promise((resolve) => {
        let buffer = '';
        let lastId = 0;
        let done;
        const finished = new Promise((r) => (done = r));
        const req = request(`${dashboard.url}api/events?loop=${id}`, (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            buffer += chunk;
            const ids = buffer.match(/^id: \d+$/gm);
            if (ids !== null) lastId = Number(ids.at(-1).slice(4));
            buffer = buffer.slice(buffer.lastIndexOf('\n\n') + 2);
            if (lastId >= last) done(performance.now());
          });
          resolve({ finished, close: () => req.destroy() });
        });
        req.end();
      }),
  ),
);
// One event per write, as the loop appends them: an agent tool call each.
const started = performance.now();
for (let i = 0; i < EVENTS; i++) {
  appendFileSync(
    events,
    `${JSON.stringify({ type: 'agent_tool_use', at: at(), iteration: 1, name: 'Bash', summary: `npm test -- case ${i}` })}\n`,
  );
}
const written = performance.now();
const ends = await Promise.all(clients.map((client) => client.finished));
const end = Math.max(...ends);
for (const client of clients) client.close();
await dashboard.close();
const seconds = (end - started) / 1000;
print(
  `SSE fan-out: ${EVENTS} events (one append each, written in ${((written - started) / 1000).toFixed(2)} s) to ${CLIENTS} clients`,
);
print(
  `  all delivered after ${seconds.toFixed(2)} s: ${Math.round(EVENTS / seconds)} events/s per client, ${Math.round((EVENTS * CLIENTS) / seconds)} messages/s in all`,
);

// --- 2. TUI CPU while idle ------------------------------------------------------------------
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) {
  print('TUI idle CPU: skipped (needs tmux for a terminal)');
} else {
  const tmuxDir = join(root, 'tmux');
  mkdirSync(tmuxDir);
  const env = { ...process.env, TMUX_TMPDIR: tmuxDir, NO_COLOR: '1' };
  const tmux = (...args) => execFileSync('tmux', args, { env, encoding: 'utf8' });
  tmux(
    'new-session',
    '-d',
    '-s',
    'bench',
    '-x',
    '80',
    '-y',
    '24',
    '-c',
    repo,
    `exec ${process.execPath} ${BIN} monitor`,
  );
  tmux('set-option', '-t', 'bench', 'remain-on-exit', 'on');
  const pid = Number(tmux('list-panes', '-t', 'bench', '-F', '#{pane_pid}').trim());
  const cpu = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, clock ticks of 10 ms
  };
  await new Promise((resolve) => setTimeout(resolve, 3000)); // start-up and the first frames
  if (tmux('list-panes', '-t', 'bench', '-F', '#{pane_dead}').trim() !== '0') {
    throw new Error(`the monitor ended:\n${tmux('capture-pane', '-p', '-t', 'bench')}`);
  }
  const IDLE_S = 10;
  const before = cpu();
  await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
  const used = cpu() - before;
  tmux('kill-server');
  print(
    `TUI idle CPU: ${used} ms of CPU in ${IDLE_S} s idle (${((used / (IDLE_S * 1000)) * 100).toFixed(2)} %), 80×24, one redraw a second for the clocks`,
  );
}

// --- 3. Start-up: lazy loading --------------------------------------------------------------
const time = (args, env) => {
  const runs = [];
  for (let i = 0; i < 15; i++) {
    const t = performance.now();
    const result = spawnSync(process.execPath, [BIN, ...args], { cwd: repo, env });
    if (result.status !== 0) throw new Error(`ralph ${args.join(' ')}: ${result.stderr}`);
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  return runs[Math.floor(runs.length / 2)].toFixed(0);
};
const withCa = { ...process.env, NO_COLOR: '1' };
const withoutCa = { ...withCa };
delete withoutCa.NODE_EXTRA_CA_CERTS;
for (const [label, env] of [
  ['as is', withCa],
  ['without NODE_EXTRA_CA_CERTS', withoutCa],
]) {
  print(
    `start-up (${label}, median of 15): ralph list ${time(['list'], env)} ms · ralph status ${time(['status', '.ralph/feature-bench'], env)} ms · ralph monitor --once ${time(['monitor', '--once'], env)} ms`,
  );
}
