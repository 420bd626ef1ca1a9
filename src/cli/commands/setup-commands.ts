import { relative } from 'node:path';
import { installSlashCommands, type CommandFileResult } from '../../plan/slash-commands.js';
import { writeLine, type CliContext } from '../context.js';

const VERBS: Record<CommandFileResult['action'], string> = {
  created: 'created',
  updated: 'updated',
  unchanged: 'unchanged',
  kept: 'kept (you changed it; --force replaces it)',
  replaced: 'replaced (--force)',
};

/** `ralph setup --commands`: the planning slash commands in a Claude Code commands folder. */
export async function setupCommands(
  dir: string,
  cliPrefix: string,
  context: CliContext,
  options: { force: boolean },
): Promise<void> {
  const results = await installSlashCommands(dir, cliPrefix, { force: options.force });
  const near = relative(context.cwd, dir);
  const shown = near === '' || near.startsWith('..') ? dir : near;
  writeLine(context.stdout, `Slash commands in ${shown}/:`);
  for (const result of results) {
    writeLine(context.stdout, `  /${result.name.padEnd(12)} ${VERBS[result.action]}`);
  }
  writeLine(
    context.stdout,
    'In Claude Code: /ralph-plan <feature> plans a feature (spec.md, prd.json), /ralph-amend changes it, /ralph-prd writes a plan without questions.',
  );
}
