#!/usr/bin/env node
// A shim: everything testable lives in main.ts.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
