/* eslint-disable no-console -- a benchmark prints its figures */
// The guard on real package scripts. Run after `npm run build`:
//   node bench/guard-scripts.bench.mjs
// Every "scripts" entry of every package.json under node_modules (published packages: real
// build, test and release scripts) is judged as `npm run NAME` in its own package, as the guard
// would in an unattended run. Prints how many are not allowed, by rule (the default policy denies
// `npm publish` and global installs on purpose; script-missing means a script file the package's
// repository has but its npm tarball does not ship), and what a decision costs.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const DIST = new URL('../dist/', import.meta.url);
if (!existsSync(new URL('guard/decide.js', DIST))) {
  process.stderr.write('dist/ is missing: run `npm run build` first\n');
  process.exit(1);
}
const { judgeToolCall } = await import(new URL('guard/decide.js', DIST).href);
const { loadShellParser } = await import(new URL('guard/shell/parse.js', DIST).href);
const { resolvePolicy } = await import(new URL('guard/policy.js', DIST).href);

const ROOT = resolve(import.meta.dirname, '..');
const loadStarted = performance.now();
await loadShellParser();
const loadMs = performance.now() - loadStarted;
const files = execFileSync(
  'find',
  ['node_modules', '-name', 'package.json', '-not', '-path', '*/test/*'],
  {
    cwd: ROOT,
    encoding: 'utf8',
  },
)
  .trim()
  .split('\n');

let total = 0;
const byRule = new Map();
const examples = new Map();
const times = [];
for (const file of files) {
  let scripts;
  try {
    scripts = JSON.parse(readFileSync(resolve(ROOT, file), 'utf8')).scripts;
  } catch {
    continue;
  }
  if (typeof scripts !== 'object' || scripts === null) continue;
  const project = dirname(resolve(ROOT, file));
  const policy = resolvePolicy({ projectRoot: project, homeDir: '/home/nobody', unattended: true });
  for (const name of Object.keys(scripts)) {
    total += 1;
    const started = performance.now();
    const verdict = judgeToolCall(
      { toolName: 'Bash', toolInput: { command: `npm run ${name}` }, cwd: project },
      policy,
    );
    times.push(performance.now() - started);
    if (verdict.decision === 'allow') continue;
    byRule.set(verdict.rule, (byRule.get(verdict.rule) ?? 0) + 1);
    if (!examples.has(verdict.rule))
      examples.set(verdict.rule, `${file} "${name}": ${scripts[name]}`);
  }
}
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
const notAllowed = [...byRule.values()].reduce((sum, count) => sum + count, 0);
console.log(`package scripts judged: ${total} from ${files.length} package.json files`);
console.log(`not allowed: ${notAllowed}`);
for (const [rule, count] of [...byRule].sort((a, b) => b[1] - a[1]))
  console.log(
    `  ${String(count).padStart(4)}  ${rule.padEnd(24)} e.g. ${examples.get(rule).slice(0, 110)}`,
  );
console.log(
  `decision for \`npm run NAME\` (reads package.json): median ${at(0.5).toFixed(3)} ms, p95 ${at(0.95).toFixed(3)} ms`,
);
console.log(`loading the bash parser (once): ${loadMs.toFixed(1)} ms`);
