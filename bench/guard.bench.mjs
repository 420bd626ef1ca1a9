/* eslint-disable no-console -- a benchmark prints its figures */
// The guard's cost per tool call (issue 7). Run after `npm run build`:
//   node bench/guard.bench.mjs [runs]
// 1. Inside `ralph run`: the in-process service on 127.0.0.1, as Claude Code's HTTP hook calls
//    it — the round trip a tool call waits for (client side, keep-alive like Claude Code's
//    axios) and the decision alone (server side). Target: median ≤ 5 ms.
// 2. `ralph guard`, the command hook of interactive sessions: process start to exit, for a Bash
//    call (loads the parser) and a Read call (does not), as the environment is and without
//    NODE_EXTRA_CA_CERTS (design.md §6: it roughly doubles Node's start-up here).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.argv[2] ?? 40);
const DIST = new URL('../dist/', import.meta.url);
const BIN = new URL('cli/bin.cjs', DIST).pathname;
if (!existsSync(BIN)) {
  process.stderr.write('dist/cli/bin.cjs is missing: run `npm run build` first\n');
  process.exit(1);
}
const { startGuardService } = await import(new URL('guard/service.js', DIST).href);
const { resolvePolicy } = await import(new URL('guard/policy.js', DIST).href);

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-bench-guard-')));
const project = join(root, 'project');
const home = join(root, 'home');
mkdirSync(join(project, '.git'), { recursive: true });
mkdirSync(join(project, 'src'), { recursive: true });
mkdirSync(home);
writeFileSync(join(project, 'src', 'a.ts'), 'export {};\n');
// `npm test` and `npm run build` make the guard read and judge these scripts too.
writeFileSync(
  join(project, 'package.json'),
  JSON.stringify({
    scripts: { pretest: 'npm run lint', test: 'vitest run', lint: 'eslint .', build: 'tsc' },
  }),
);

// A realistic mix: what an iteration of a coding agent calls most.
const CALLS = [
  ['Bash', { command: 'npm test' }],
  ['Bash', { command: 'git add -A && git commit -qm "STORY-001: add the parser"' }],
  ['Bash', { command: 'grep -rn "TODO" src | head -20' }],
  ['Bash', { command: 'cd src && ls -la && cat a.ts' }],
  ['Bash', { command: 'rm -rf dist node_modules/.cache && npm run build 2>&1 | tail -5' }],
  ['Bash', { command: 'npm test; rm -rf /' }],
  ['Read', { file_path: join(project, 'src', 'a.ts') }],
  [
    'Write',
    { file_path: join(project, 'src', 'b.ts'), content: 'export const b = 1;\n'.repeat(50) },
  ],
  ['Edit', { file_path: join(project, 'src', 'a.ts'), old_string: 'a', new_string: 'b' }],
  ['Glob', { pattern: '**/*.ts' }],
  ['Grep', { pattern: 'export', path: join(project, 'src') }],
];
const body = ([tool, input], i) =>
  JSON.stringify({
    session_id: 'bench',
    transcript_path: join(root, 't.jsonl'),
    cwd: project,
    permission_mode: 'bypassPermissions',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: `toolu_${i}`,
  });

const stats = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p95: at(0.95), min: sorted[0], max: sorted.at(-1) };
};
const ms = (value) => `${value.toFixed(2)} ms`;
const line = (label, s) =>
  console.log(
    `  ${label.padEnd(44)} median ${ms(s.median)}  p95 ${ms(s.p95)}  (min ${ms(s.min)}, max ${ms(s.max)})`,
  );

// 1. The in-process service.
const policy = resolvePolicy({ projectRoot: project, homeDir: home, unattended: true });
const serviceStart = performance.now();
const service = await startGuardService({ policy, auditLog: join(root, 'audit.jsonl') });
// The service loads the bash parser (WASM) before it listens, so this includes that load.
const startMs = performance.now() - serviceStart;
const agent = new http.Agent({ keepAlive: true });
const post = (payload) =>
  new Promise((resolve, reject) => {
    const request = http.request(
      service.url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', resolve);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
const coldStart = performance.now();
await post(body(CALLS[0], 0));
const cold = performance.now() - coldStart;
service.latencies.length = 0;
const roundTrips = [];
const requests = RUNS * 25;
for (let i = 0; i < requests; i++) {
  const started = performance.now();
  await post(body(CALLS[i % CALLS.length], i));
  roundTrips.push(performance.now() - started);
}
await service.close();
agent.destroy();
console.log(
  `guard inside ralph run (HTTP hook → in-process service), ${requests} tool calls, mix of ${CALLS.length}:`,
);
line('round trip per tool call (what Claude waits)', stats(roundTrips));
line('decision inside the service', stats(service.latencies));
console.log(`  service start (loads the bash parser):       ${ms(startMs)}`);
console.log(`  first call:                                   ${ms(cold)}`);

// 2. The command hook.
const runCommand = (input, env) => {
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [BIN, 'guard', '--audit-log', join(root, 'cmd-audit.jsonl')],
    {
      input,
      env,
      cwd: project,
      encoding: 'utf8',
    },
  );
  if (result.status !== 0 || !result.stdout.includes('permissionDecision')) {
    throw new Error(`ralph guard failed: ${result.stderr}${result.stdout}`);
  }
  return performance.now() - started;
};
const withCerts = { ...process.env, HOME: home };
const withoutCerts = { ...withCerts };
delete withoutCerts.NODE_EXTRA_CA_CERTS;
const variants = [
  [
    `as is (NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS === undefined ? 'unset' : 'set'})`,
    withCerts,
  ],
  ['env -u NODE_EXTRA_CA_CERTS', withoutCerts],
];
const empty = (env) => {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { env });
  return performance.now() - started;
};
console.log(`\nralph guard (command hook, one process per tool call), ${RUNS} runs each:`);
for (const [label, env] of variants) {
  console.log(` ${label}:`);
  line('empty node -e 0 (the floor)', stats(Array.from({ length: RUNS }, () => empty(env))));
  line(
    'Bash `npm test; rm -rf /` (parser loaded)',
    stats(Array.from({ length: RUNS }, () => runCommand(body(CALLS[5], 0), env))),
  );
  line(
    'Read src/a.ts (no parser)',
    stats(Array.from({ length: RUNS }, () => runCommand(body(CALLS[6], 0), env))),
  );
}
rmSync(root, { recursive: true, force: true });
