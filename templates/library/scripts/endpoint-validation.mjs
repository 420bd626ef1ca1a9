#!/usr/bin/env node
// endpoint-validation: requests every endpoint of a running server at once and reports each
// status, instead of one curl per endpoint.
//
//   node endpoint-validation.mjs --base http://localhost:3000 [--endpoints FILE] [--discover DIR]
//                                [--timeout-ms 5000] [--concurrency 8] [ENDPOINT...]
//
// An endpoint is "GET /path", "POST /path 201" (the expected status) or just "/path" (GET, any
// 2xx or 3xx). FILE holds one per line (# comments allowed). --discover reads routes from source:
// Express/Fastify/Koa style `app.get('/path'` and Flask/FastAPI style `@app.get("/path")` /
// `@app.route("/path")`; routes with parameters (:id, <id>, {id}) are listed as skipped.
// stdout: one JSON report; stderr: a summary. Exit 0 when all pass, 1 when any fails, 2 on a
// usage error. Node 18+ (global fetch), no dependencies.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const usage = (problem) => {
  process.stderr.write(
    `endpoint-validation: ${problem}\nusage: endpoint-validation.mjs --base URL [--endpoints FILE] [--discover DIR] [ENDPOINT...]\n`,
  );
  process.exit(2);
};

const args = process.argv.slice(2);
const options = { base: undefined, timeoutMs: 5000, concurrency: 8 };
const written = [];
const discovered = [];
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index];
  const value = () => args[++index] ?? usage(`${arg} needs a value`);
  if (arg === '--base') options.base = value();
  else if (arg === '--endpoints') {
    written.push(...readFileSync(value(), 'utf8').split('\n'));
  } else if (arg === '--discover') discovered.push(...discover(value()));
  else if (arg === '--timeout-ms') options.timeoutMs = Number(value());
  else if (arg === '--concurrency') options.concurrency = Math.max(1, Number(value()));
  else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
  else written.push(arg);
}
if (options.base === undefined) usage('--base is required');

function parse(line) {
  const text = line.replace(/#.*$/, '').trim();
  if (text === '') return undefined;
  const parts = text.split(/\s+/);
  const method = /^[A-Z]+$/.test(parts[0]) ? parts.shift() : 'GET';
  const [path, expected] = parts;
  return { method, path, expected: expected === undefined ? undefined : Number(expected) };
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!['node_modules', '.git', 'dist', 'build', '__pycache__'].includes(entry.name)) {
        yield* sourceFiles(join(dir, entry.name));
      }
    } else if (['.js', '.mjs', '.cjs', '.ts', '.py'].includes(extname(entry.name))) {
      yield join(dir, entry.name);
    }
  }
}

function discover(dir) {
  const found = [];
  const js = /\b(?:app|router|server|fastify)\.(get|post|put|patch|delete)\(\s*['"`](\/[^'"`]*)['"`]/g;
  const py = /@\w+\.(get|post|put|patch|delete|route)\(\s*['"](\/[^'"]*)['"]/g;
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(file, 'utf8');
    for (const match of [...text.matchAll(js), ...text.matchAll(py)]) {
      const method = match[1] === 'route' ? 'GET' : match[1].toUpperCase();
      found.push({ method, path: match[2], expected: undefined });
    }
  }
  return found;
}

const seen = new Set();
const endpoints = [...written.map(parse).filter(Boolean), ...discovered].filter((each) => {
  const key = `${each.method} ${each.path}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
});
if (endpoints.length === 0) usage('no endpoints: give some, --endpoints FILE or --discover DIR');

async function check(endpoint) {
  if (/[:<{]/.test(endpoint.path)) {
    return { ...endpoint, ok: null, skipped: 'the path has parameters' };
  }
  const started = Date.now();
  try {
    const response = await fetch(new URL(endpoint.path, options.base), {
      method: endpoint.method,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await response.arrayBuffer();
    const ok =
      endpoint.expected === undefined
        ? response.status >= 200 && response.status < 400
        : response.status === endpoint.expected;
    return { ...endpoint, status: response.status, ok, ms: Date.now() - started };
  } catch (error) {
    const reason = error?.name === 'TimeoutError' ? `no answer in ${options.timeoutMs} ms` : String(error?.cause?.code ?? error?.message ?? error);
    return { ...endpoint, status: null, ok: false, ms: Date.now() - started, error: reason };
  }
}

const results = new Array(endpoints.length);
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(options.concurrency, endpoints.length) }, async () => {
    while (next < endpoints.length) {
      const index = next++;
      results[index] = await check(endpoints[index]);
    }
  }),
);
const failed = results.filter((each) => each.ok === false);
const skipped = results.filter((each) => each.ok === null);
const report = {
  audit: 'endpoints',
  base: options.base,
  summary: {
    total: results.length,
    passed: results.filter((each) => each.ok === true).length,
    failed: failed.length,
    skipped: skipped.length,
    status: failed.length === 0 ? 'pass' : 'fail',
  },
  results: results.map(({ expected, ...rest }) => ({ ...rest, expected: expected ?? '2xx/3xx' })),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
process.stderr.write(
  `endpoint-validation: ${report.summary.passed}/${results.length} passed, ${failed.length} failed` +
    `${skipped.length > 0 ? `, ${skipped.length} skipped` : ''}` +
    failed.map((each) => `\n  ${each.method} ${each.path}: ${each.status ?? each.error}`).join('') +
    '\n',
);
process.exitCode = failed.length === 0 ? 0 : 1;
