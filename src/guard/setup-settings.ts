import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import { RalphError } from '../util/errors.js';
import { GUARDED_TOOLS } from './hook-settings.js';

/**
 * `ralph setup --guard`: the guard as a command hook in `.claude/settings.local.json` for
 * interactive sessions, plus the allow/deny lists of the Ralph Loop v2 plan's settings, merged
 * into what is there: existing keys, hooks and list entries stay, ralph's are added once, an
 * older ralph guard hook is replaced. A file that is not a JSON object is never rewritten.
 *
 * The allow list leaves out what reaches the network on its own (`WebFetch`, `Bash(curl:*)`):
 * an allow entry approves a call without a prompt, and the guard's hook covers neither WebFetch
 * nor where curl sends a file. A person who wants them adds them knowingly.
 */

export const PLAN_ALLOW = [
  'Read',
  'Glob',
  'Grep',
  'Edit',
  'Write',
  'Task',
  'TodoWrite',
  'Bash(npm:*)',
  'Bash(npx:*)',
  'Bash(node:*)',
  'Bash(git:*)',
  'Bash(ls:*)',
  'Bash(pwd)',
  'Bash(cat:*)',
  'Bash(head:*)',
  'Bash(tail:*)',
  'Bash(mkdir:*)',
  'Bash(jq:*)',
  'Bash(grep:*)',
  'Bash(echo:*)',
  'Bash(date)',
  'Bash(sleep:*)',
];

export const PLAN_DENY = [
  'Bash(rm -rf /*)',
  'Bash(rm -rf /)',
  'Bash(sudo:*)',
  'Bash(chmod 777:*)',
  'Read(.env)',
  'Read(.env.*)',
  'Read(**/secrets/**)',
  'Read(**/*.pem)',
  'Read(**/*.key)',
  'Edit(.env)',
  'Edit(.env.*)',
  'Write(.env)',
  'Write(.env.*)',
];

export const GUARD_HOOK_TIMEOUT_SECONDS = 30;

type Json = Record<string, unknown>;

/** What `installGuardSettings` did, so the command can show every entry it wrote. */
export interface GuardSettingsChange {
  action: 'added' | 'updated' | 'unchanged';
  /** Entries added to permissions.allow / permissions.deny (those already there are left out). */
  allowAdded: string[];
  denyAdded: string[];
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a hook command is ralph's guard (`ralph guard`, `node …/bin.cjs guard`, …). */
export function isRalphGuardHook(command: string): boolean {
  return /(^|[\s/'"])(ralph|bin\.c?js['"]?)\s+guard(\s|$)/.test(command);
}

export async function installGuardSettings(
  path: string,
  command: string,
): Promise<GuardSettingsChange> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  let settings: unknown = {};
  if (text !== undefined) {
    try {
      settings = JSON.parse(text);
    } catch {
      throw new RalphError('INVALID_JSON', `${path} is not valid JSON; left it unchanged`, {
        hint: 'Fix the file (or move it away), then run `ralph setup --guard` again.',
        location: { file: path },
      });
    }
  }
  if (!isObject(settings)) throw shapeError(path, '(root)');
  const before = JSON.stringify(settings);
  const permissions = objectAt(settings, 'permissions', path);
  const addTo = (key: 'allow' | 'deny', entries: readonly string[]): string[] => {
    const list = arrayAt(permissions, key, path);
    const added = entries.filter((entry) => !list.includes(entry));
    list.push(...added);
    return added;
  };
  const allowAdded = addTo('allow', PLAN_ALLOW);
  const denyAdded = addTo('deny', PLAN_DENY);
  const hooks = objectAt(settings, 'hooks', path);
  const groups = arrayAt(hooks, 'PreToolUse', path).filter(isObject);
  hooks.PreToolUse = groups;
  const state = { found: false };
  for (const group of groups) {
    if (!Array.isArray(group.hooks)) continue;
    group.hooks = group.hooks.filter((hook: unknown) => {
      if (!isObject(hook) || typeof hook.command !== 'string' || !isRalphGuardHook(hook.command))
        return true;
      if (state.found) return false;
      state.found = true;
      hook.command = command;
      group.matcher = GUARDED_TOOLS;
      return true;
    });
  }
  if (!state.found) {
    groups.push({
      matcher: GUARDED_TOOLS,
      hooks: [{ type: 'command', command, timeout: GUARD_HOOK_TIMEOUT_SECONDS }],
    });
  }
  hooks.PreToolUse = groups.filter(
    (group) => !Array.isArray(group.hooks) || group.hooks.length > 0,
  );
  if (JSON.stringify(settings) === before) return { action: 'unchanged', allowAdded, denyAdded };
  const indent = text === undefined ? 2 : (/^[ \t]+(?=")/m.exec(text)?.[0] ?? 2);
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(settings, null, indent)}\n`);
  return {
    action: text === undefined || !state.found ? 'added' : 'updated',
    allowAdded,
    denyAdded,
  };
}

function objectAt(parent: Json, key: string, path: string): Json {
  const value = (parent[key] ??= {});
  if (!isObject(value)) throw shapeError(path, key);
  return value;
}

function arrayAt(parent: Json, key: string, path: string): unknown[] {
  const value = (parent[key] ??= []);
  if (!Array.isArray(value)) throw shapeError(path, key);
  return value;
}

function shapeError(path: string, field: string): RalphError {
  return new RalphError(
    'INVALID_JSON',
    `${path}: ${field}: not the shape Claude Code reads; left it unchanged`,
    {
      hint: 'Fix the file, then run `ralph setup --guard` again.',
      location: { file: path, field },
    },
  );
}
