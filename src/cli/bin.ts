#!/usr/bin/env node
// A shim: everything testable lives in main.ts.
const argv = process.argv.slice(2);

// Hooks that Claude Code runs at every stop must not pay for loading commander and every command
// (design.md §6): they dispatch before main.js is imported. `--help` still goes through main.
if (argv[0] === 'stop-hook' && !argv.includes('--help') && !argv.includes('-h')) {
  const { stopHookMain } = await import('./commands/stop-hook.js');
  process.exitCode = await stopHookMain(argv.slice(1), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
} else if (argv[0] === 'guard' && !argv.includes('--help') && !argv.includes('-h')) {
  // The guard runs before every tool call of an interactive session (ralph setup --guard).
  const { guardMain } = await import('./commands/guard.js');
  process.exitCode = await guardMain(argv.slice(1), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
} else {
  // zod compiles a fast path (new Function) for each object schema on its first parse; a command
  // parses each schema a handful of times, so compiling costs more than it saves (~25 ms of a
  // one-story run). The CLI owns its process, so it may set zod's global option; the library
  // does not. Here, not above: the hooks dispatched above need no zod at start.
  const { config: configureZod } = await import('zod');
  configureZod({ jitless: true });
  const { closeQuietlyOnBrokenOutput } = await import('./broken-output.js');
  closeQuietlyOnBrokenOutput();
  const { main } = await import('./main.js');
  process.exitCode = await main(argv, {
    cwd: process.cwd(),
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
  });
}
