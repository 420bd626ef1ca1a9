import { Command } from '@commander-js/extra-typings';
import type { CliContext, SetExitCode } from '../context.js';
import { stopHookMain } from './stop-hook.js';

/**
 * `ralph stop-hook` as seen by commander: for `ralph --help` and `ralph stop-hook --help`, and for
 * in-process runs. The installed hook never comes through here: bin.ts takes a fast path.
 */
export function stopHookCommand(
  context: CliContext,
  setExitCode: SetExitCode,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
) {
  return new Command('stop-hook')
    .description(
      'The Claude Code Stop hook of `ralph loop` (installed by `ralph setup`): reads the hook ' +
        'JSON on stdin and feeds the loop prompt back to the session that owns it. Always exits 0.',
    )
    .action(async () => {
      setExitCode(await stopHookMain([], { ...context, stdin }));
    });
}
