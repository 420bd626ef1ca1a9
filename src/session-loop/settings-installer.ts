import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../state/atomic-write.js';
import { RalphError } from '../util/errors.js';
import { isRalphStopHook } from './hook-command.js';

/**
 * `ralph setup --stop-hook`: registers the Stop hook in `.claude/settings.local.json`, keeping
 * everything else in the file. The shape is checked with zod, but the edit is made on the
 * parsed JSON itself so key order and unknown settings survive. A file that is not JSON, or whose
 * `hooks` are not the shape Claude Code reads, is never rewritten: ralph names it and stops.
 */

const hookHandler = z.looseObject({ type: z.string(), command: z.string().optional() });
const matcherGroup = z.looseObject({ matcher: z.string().optional(), hooks: z.array(hookHandler) });
const settingsShape = z.looseObject({
  hooks: z.looseObject({ Stop: z.array(matcherGroup).optional() }).optional(),
});
type Settings = z.input<typeof settingsShape>;
type Group = z.input<typeof matcherGroup>;

export type InstallAction = 'added' | 'updated' | 'unchanged';

export const HOOK_TIMEOUT_SECONDS = 30;

export async function installStopHookSettings(
  path: string,
  command: string,
): Promise<{ action: InstallAction }> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const settings = text === undefined ? {} : parseSettings(text, path);
  const stop = ((settings.hooks ??= {}).Stop ??= []);
  const action = upsertHook(stop, command);
  if (action === 'unchanged') return { action };
  const indent = text === undefined ? 2 : (/^[ \t]+(?=")/m.exec(text)?.[0] ?? 2);
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(settings, null, indent)}\n`);
  return { action };
}

function parseSettings(text: string, path: string): Settings {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new RalphError(
      'INVALID_JSON',
      `${path} is not valid JSON (${error instanceof Error ? error.message : String(error)}); left it unchanged`,
      {
        hint: 'Fix the file (or move it away), then run `ralph setup --stop-hook` again.',
        location: { file: path },
      },
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw shapeError(path, '(root)', 'expected a JSON object');
  const parsed = settingsShape.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw shapeError(path, issue?.path.join('.') ?? '', issue?.message ?? 'unexpected shape');
  }
  // Validated above; the original object is edited so nothing is reordered or dropped.
  return data as Settings;
}

function shapeError(path: string, field: string, message: string): RalphError {
  return new RalphError('INVALID_JSON', `${path}: ${field}: ${message}; left it unchanged`, {
    hint: 'Claude Code expects "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "…"}]}]}. Fix the file, then run setup again.',
    location: { file: path, field },
  });
}

/** One ralph Stop hook in the list: an exact one is kept, an older form is replaced, extras go. */
function upsertHook(groups: Group[], command: string): InstallAction {
  const ours = groups.flatMap((group) =>
    group.hooks.filter((hook) => hook.type === 'command' && isRalphStopHook(hook.command ?? '')),
  );
  const [first, ...extra] = ours;
  if (first === undefined) {
    groups.push({ hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }] });
    return 'added';
  }
  if (first.command === command && extra.length === 0) return 'unchanged';
  first.command = command;
  for (const group of groups) group.hooks = group.hooks.filter((hook) => !extra.includes(hook));
  const emptied = groups.filter((group) => group.hooks.length === 0);
  for (const group of emptied) groups.splice(groups.indexOf(group), 1);
  return 'updated';
}

/** The Stop hook commands a settings or hooks.json text registers; none when it does not parse. */
export function stopHookCommandsIn(text: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  const parsed = settingsShape.safeParse(data);
  if (!parsed.success) return [];
  return (parsed.data.hooks?.Stop ?? []).flatMap((group) =>
    group.hooks.flatMap((hook) => (hook.command === undefined ? [] : [hook.command])),
  );
}
