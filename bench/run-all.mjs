// `npm run bench`: every bench/*.bench.mjs, one after another (never in parallel: they time
// processes and would skew each other), each in its own node process with the output as is.
// Each takes its own optional arguments, so none are passed here; a failing one is reported and
// the rest still run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const DIR = import.meta.dirname;
const benches = readdirSync(DIR)
  .filter((name) => name.endsWith('.bench.mjs'))
  .sort();
const failed = [];
for (const name of benches) {
  process.stdout.write(`\n=== ${name} ===\n`);
  const result = spawnSync(process.execPath, [join(DIR, name)], {
    stdio: 'inherit',
  });
  if (result.status !== 0) failed.push(`${name} (${result.signal ?? `exit ${result.status}`})`);
}
if (failed.length > 0) {
  process.stderr.write(`\nfailed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
