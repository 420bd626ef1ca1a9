import { CommanderError } from '@commander-js/extra-typings';
import type { CliContext } from './context.js';
import { reportError } from './exit.js';
import { createProgram } from './program.js';

/** Runs one ralph command line and returns its exit code; never calls process.exit. */
export async function main(argv: readonly string[], context: CliContext): Promise<number> {
  let exitCode = 0;
  const program = await createProgram(
    context,
    (code) => {
      exitCode = code;
    },
    argv,
  );
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError && argv.length === 0) return 0;
    return reportError(error, context, argv.includes('--json'));
  }
  return exitCode;
}
