/* eslint-disable no-console -- a benchmark prints its figures */
// The OS sandbox's start cost per agent process. Run after `npm run build`:
//   node bench/sandbox-start.bench.mjs [runs]
// Times `true` started directly, inside bubblewrap with a bare read-only root, and inside the
// sandbox ralph builds for a scratch git repository (its whole policy: caches, agent state,
// read-only islands, hidden secrets), plus building that policy and command line. Medians of
// sequential runs; the difference to plain `true` is what every iteration pays.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const DIST = new URL('../dist/', import.meta.url);
if (!existsSync(new URL('sandbox/sandbox.js', DIST))) {
  process.stderr.write('dist/ is missing: run `npm run build` first\n');
  process.exit(1);
}
const { createSandbox, findBwrap } = await import(new URL('sandbox/sandbox.js', DIST).href);
const bwrap = findBwrap(process.env.PATH);
if (bwrap === undefined || spawnSync(bwrap, ['--version']).status !== 0) {
  console.log('bubblewrap (bwrap) is not installed or does not work here: nothing to measure');
  process.exit(0);
}
const runs = Number(process.argv[2] ?? 41);
const root = mkdtempSync(join(tmpdir(), 'ralph-bench-sandbox-'));
const repo = join(root, 'repo');
const home = join(root, 'home');
mkdirSync(join(home, '.ssh'), { recursive: true });
execFileSync('git', ['init', '-q', repo]);
writeFileSync(join(repo, '.env'), 'SECRET=1\n');
const sandbox = createSandbox(bwrap, {
  projectRoot: repo,
  gitDir: join(repo, '.git'),
  homeDir: home,
  controlPaths: [],
  controlDirs: [],
  env: {},
  writable: [],
  readOnly: [],
  hidden: [],
  // The default cap: each command joins a pids cgroup first where one can be made (root).
  maxProcesses: 4096,
});

function median(action) {
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    action();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
const run = (file, args) => () => execFileSync(file, args, { cwd: repo });
const bare = ['--die-with-parent', '--unshare-pid', '--ro-bind', '/', '/', '--dev', '/dev'];
const full = sandbox.wrap('true', []);
const plain = median(run('true', []));
const bareMs = median(run(bwrap, [...bare, '--proc', '/proc', '--', 'true']));
const fullMs = median(run(full.file, full.args));
const buildMs = median(() => sandbox.wrap('true', []));
const cap = sandbox.processCap();
sandbox.dispose();
rmSync(root, { recursive: true, force: true });
const ms = (value) => `${value.toFixed(2)} ms`;
console.log(`runs: ${runs} each, medians`);
console.log(`true                          ${ms(plain)}`);
console.log(`bwrap, bare read-only root    ${ms(bareMs)}  (+${ms(bareMs - plain)})`);
console.log(
  `bwrap, ralph's policy (${full.args.length} args, process cap: ${cap}) ${ms(fullMs)}  (+${ms(fullMs - plain)})`,
);
console.log(`building the policy and argv  ${ms(buildMs)}`);
