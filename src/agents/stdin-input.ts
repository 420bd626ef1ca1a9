import type { Writable } from 'node:stream';

/**
 * Writes a child's whole input to its stdin and closes it. The prompt goes this way rather than
 * as an argument: Linux refuses a single argument over 128 KiB (E2BIG) and the whole argv over a
 * few MiB, and argv is visible to every user in `ps`. A child that exits without reading it all
 * makes the pipe fail (EPIPE): that is the child's business (its exit code says what happened),
 * never an exception here.
 */
export function feedStdin(stdin: Writable | null, input: string | undefined): void {
  if (stdin === null) return;
  stdin.on('error', () => undefined);
  stdin.end(input ?? '');
}
