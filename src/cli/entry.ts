// The CLI's whole start, bundled into dist/cli/bundle.cjs and run by the launcher (src/cli/bin.cjs)
// with the V8 code cache the build wrote beside it. Everything testable lives in main.ts.

/** Runs `ralph ARGV…` in this process: the exit code goes to process.exitCode. */
export async function runCli(argv: string[]): Promise<void> {
  const io = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
  // Hooks that Claude Code runs at every stop or tool call must not pay for commander and every
  // command (design.md §6): they dispatch before main.js is loaded. `--help` still goes through main.
  const help = argv.includes('--help') || argv.includes('-h');
  if (argv[0] === 'stop-hook' && !help) {
    const { stopHookMain } = await import('./commands/stop-hook.js');
    process.exitCode = await stopHookMain(argv.slice(1), io);
    return;
  }
  if (argv[0] === 'guard' && !help) {
    const { guardMain } = await import('./commands/guard.js');
    process.exitCode = await guardMain(argv.slice(1), io);
    return;
  }
  // zod compiles a fast path (new Function) for each object schema on its first parse; a command
  // parses each schema a handful of times, so compiling costs more than it saves (~25 ms of a
  // one-story run). The CLI owns its process, so it may set zod's global option; the library
  // does not. Here, not above: the hooks dispatched above need no zod at start.
  const { config: configureZod } = await import('zod');
  configureZod({ jitless: true });
  const { closeQuietlyOnBrokenOutput } = await import('./broken-output.js');
  closeQuietlyOnBrokenOutput();
  const { main } = await import('./main.js');
  process.exitCode = await main(argv, io);
}
