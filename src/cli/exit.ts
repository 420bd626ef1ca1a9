import { CommanderError } from '@commander-js/extra-typings';
import { formatLocation, RalphError } from '../util/errors.js';
import { writeLine, type CliContext } from './context.js';

/** Exit codes of design.md §4. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  invalidInput: 2,
  interrupted: 130,
} as const;

/**
 * The one place that turns an error into output and an exit code. RalphErrors are a person's
 * problem to fix (message, where, hint); anything else is ralph's bug and says so.
 */
export function reportError(error: unknown, context: CliContext, json: boolean): number {
  if (error instanceof CommanderError) {
    // Commander already printed its message (unknown option, missing argument, …).
    return error.exitCode === 0 ? ExitCode.ok : ExitCode.invalidInput;
  }
  if (error instanceof RalphError) {
    const where = error.location ? formatLocation(error.location) : undefined;
    if (json) {
      const payload = {
        error: {
          code: error.code,
          message: error.message,
          hint: error.hint,
          location: error.location,
        },
      };
      writeLine(context.stdout, JSON.stringify(payload));
    } else {
      writeLine(context.stderr, `ralph: ${error.message}`);
      if (where !== undefined && !error.message.includes(where))
        writeLine(context.stderr, `  at ${where}`);
      if (error.hint !== undefined) writeLine(context.stderr, `  hint: ${error.hint}`);
    }
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) {
    writeLine(context.stdout, JSON.stringify({ error: { code: 'INTERNAL', message } }));
  } else {
    writeLine(context.stderr, `ralph: internal error: ${message}`);
    if (
      error instanceof Error &&
      error.stack !== undefined &&
      context.env.RALPH_DEBUG !== undefined
    ) {
      writeLine(context.stderr, error.stack);
    }
    writeLine(
      context.stderr,
      '  hint: this is a bug in ralph; rerun with RALPH_DEBUG=1 for a stack trace',
    );
  }
  return ExitCode.failure;
}
