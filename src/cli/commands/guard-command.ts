import { Command } from '@commander-js/extra-typings';
import type { CliContext, SetExitCode } from '../context.js';
import { guardMain } from './guard.js';

/**
 * `ralph guard` as seen by commander: for `ralph --help` and `ralph guard --help`, and for
 * in-process runs. The installed hook never comes through here: bin.ts takes a fast path.
 */
export function guardCommand(
  context: CliContext,
  setExitCode: SetExitCode,
  stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin,
) {
  return new Command('guard')
    .description(
      "The Claude Code PreToolUse hook of ralph's guard (installed by `ralph setup --guard`;\n" +
        '`ralph run` serves the same policy in-process): reads the hook JSON on stdin, prints the\n' +
        'allow/deny/ask decision, appends it to the audit log. Unparseable input is denied.',
    )
    .option('--audit-log <file>', 'where to append decisions (default .ralph/logs/audit.jsonl)')
    .option('--unattended', 'deny what would otherwise ask')
    .action(async (options) => {
      const argv = [
        ...(options.auditLog === undefined ? [] : ['--audit-log', options.auditLog]),
        ...(options.unattended === true ? ['--unattended'] : []),
      ];
      setExitCode(await guardMain(argv, { ...context, stdin }));
    });
}
