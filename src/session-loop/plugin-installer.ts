import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { HOOK_TIMEOUT_SECONDS } from './settings-installer.js';

/**
 * `ralph setup --plugin`: writes a Claude Code plugin folder (the ralph-loop-mac layout):
 * `.claude-plugin/plugin.json`, a one-plugin `marketplace.json` beside it (so
 * `/plugin marketplace add DIR` works), slash commands that call the CLI, and `hooks/hooks.json`
 * registering the Stop hook. Files are rewritten only when their content differs, so running it
 * twice changes nothing; files of other origin in the folder are left alone.
 */

export const PLUGIN_NAME = 'ralph-loop';
const COMMANDS = ['ralph-loop', 'start-loop', 'list', 'cancel-ralph', 'help'] as const;
const TEMPLATES = new URL('../../templates/plugin/commands/', import.meta.url);
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

export interface PluginFileResult {
  path: string;
  action: 'created' | 'updated' | 'unchanged';
}

export async function installPlugin(dir: string, cliPrefix: string): Promise<PluginFileResult[]> {
  const files = await pluginFiles(cliPrefix);
  const results: PluginFileResult[] = [];
  for (const [relative, content] of files) {
    const path = join(dir, relative);
    const existing = await readFile(path, 'utf8').catch(() => undefined);
    if (existing === content) {
      results.push({ path, action: 'unchanged' });
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, content);
    results.push({ path, action: existing === undefined ? 'created' : 'updated' });
  }
  return results;
}

async function pluginFiles(cliPrefix: string): Promise<[string, string][]> {
  const description =
    'In-session Ralph loops: the same prompt again at every stop, per-session ownership, completion promises (ralph).';
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const commands = await Promise.all(
    COMMANDS.map(async (name): Promise<[string, string]> => {
      const template = await readFile(new URL(`${name}.md`, TEMPLATES), 'utf8');
      return [join('commands', `${name}.md`), template.replaceAll('{{ralph}}', cliPrefix)];
    }),
  );
  return [
    [
      join('.claude-plugin', 'plugin.json'),
      json({ name: PLUGIN_NAME, version, description, author: { name: 'ralph' } }),
    ],
    [
      join('.claude-plugin', 'marketplace.json'),
      json({
        name: 'ralph-local',
        owner: { name: 'ralph' },
        plugins: [{ name: PLUGIN_NAME, source: './', description }],
      }),
    ],
    [
      join('hooks', 'hooks.json'),
      json({
        description: 'ralph in-session loops: feed the loop prompt back at every stop',
        hooks: {
          Stop: [
            {
              hooks: [
                {
                  type: 'command',
                  command: `${cliPrefix} stop-hook`,
                  timeout: HOOK_TIMEOUT_SECONDS,
                },
              ],
            },
          ],
        },
      }),
    ],
    ...commands,
  ];
}
