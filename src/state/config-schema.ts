import type * as z from 'zod';
import {
  choice,
  envNameOf,
  fileSchemaOf,
  flag,
  isSection,
  nonNegativeNumber,
  positiveNumber,
  requirementOf,
  resolvedSchemaOf,
  section,
  text,
  list,
  wholeNumber,
} from './config-setting.js';
import type { Section, Setting, Table } from './config-setting.js';
import { DEFAULT_PROTECTED_BRANCHES } from './paths.js';
import { GUARD_SETTINGS } from './guard-config-schema.js';
import { SANDBOX_SETTINGS } from './sandbox-config-schema.js';
import { HOOKS_SETTINGS } from './hooks-config-schema.js';
import { COMPLETION_SETTINGS, CONTEXT_SETTINGS } from './context-config-schema.js';
import { MEMORY_SETTINGS } from './memory-config-schema.js';
import { NOTIFY_SETTINGS } from './notify-config-schema.js';
import { SAFETY_SETTINGS } from './safety-config-schema.js';
import { QUALITY_CHECKS_SETTING, VERIFY_SETTINGS } from './verify-config-schema.js';

/**
 * The settings of config.yaml (design.md §4), as one table: each key's zod type, requirement
 * words, default and description are written once (here and in the area files beside it), and
 * everything else is derived from it — `configFileSchema` (one layer: a file, the environment or
 * the flags, merged before defaults apply; the published JSON Schema), `configSchema` (the
 * resolved `Config`), the RALPH_* names, the hints, the CLI's choices and default texts
 * (config-facts.ts) and the README's table (config-docs.ts). Adding a key here is the whole
 * change.
 */

export const PROFILES = ['quality', 'balanced', 'budget'] as const;
export const AGENT_IDS = ['claude'] as const;

export const CONFIG_TABLE = {
  maxIterations: wholeNumber(1, {
    description: 'Most iterations in one run; reaching it ends the run with exit code 1.',
    default: 20,
  }),
  timeoutMinutes: positiveNumber({
    description: 'Minutes one iteration may take before its agent is stopped.',
    default: 15,
  }),
  pauseSeconds: nonNegativeNumber({
    description: 'Seconds to wait between iterations.',
    default: 2,
  }),
  model: text({
    description: 'Model for every story that does not name its own (overrides the profile).',
    requirement: 'a model name such as claude-sonnet-4-5',
    defaultText: "the story's, the profile's or the agent's choice",
  }),
  profile: choice(PROFILES, {
    description: 'How models are chosen when nothing names one: quality, balanced or budget.',
    default: 'balanced',
  }),
  protectedBranches: list({
    description: 'Branches that get a warning when ralph derives the loop directory from them.',
    requirement: 'a list of branch names',
    default: [...DEFAULT_PROTECTED_BRANCHES],
  }),
  agent: choice(AGENT_IDS, { description: 'The coding agent to run.', default: 'claude' }),
  agents: section(
    'Per-agent settings.',
    {
      claude: section(
        'Settings for Claude Code.',
        {
          command: text({
            description: 'The Claude Code executable (a path or a name on PATH).',
            requirement: 'a path or command name',
            default: 'claude',
            defaultText: '`claude` on PATH',
            defaultIn: 'src/cli/settings.ts',
            envAliases: ['RALPH_CLAUDE_BIN'],
          }),
          dangerouslySkipPermissions: flag({
            description:
              'Pass --dangerously-skip-permissions to Claude Code. Only inside a sandbox.',
            default: false,
          }),
        },
        'a mapping (command, dangerouslySkipPermissions)',
      ),
    },
    'a mapping with one entry per agent (claude)',
  ),
  completion: COMPLETION_SETTINGS,
  completionPatterns: list({
    description: 'Extra text that, in the agent output, marks the whole task list as complete.',
    requirement: 'a list of strings',
    default: [],
  }),
  loop: section('In-session loops: `ralph loop` and the Claude Code Stop hook.', {
    backstopIterations: wholeNumber(1, {
      description:
        'Hard limit on the iterations of an in-session loop (`ralph loop`), applied even when its max_iterations is 0 (unlimited).',
      default: 500,
    }),
    orphanedAfterMinutes: positiveNumber({
      description:
        'Minutes without activity (state file or session transcript) after which `ralph loop list` shows a loop as ORPHANED.',
      default: 60,
    }),
  }),
  ...SAFETY_SETTINGS,
  qualityChecks: QUALITY_CHECKS_SETTING,
  verify: VERIFY_SETTINGS,
  guard: GUARD_SETTINGS,
  sandbox: SANDBOX_SETTINGS,
  notify: NOTIFY_SETTINGS,
  hooks: HOOKS_SETTINGS,
  context: CONTEXT_SETTINGS,
  memory: MEMORY_SETTINGS,
};

export const configFileSchema = fileSchemaOf(CONFIG_TABLE).describe(
  'ralph configuration (~/.config/ralph/config.yaml or <repo>/.ralph/config.yaml).',
);
/** One layer of settings: a config file, the environment or the CLI flags. */
export type ConfigFile = z.input<typeof configFileSchema>;

export const configSchema = resolvedSchemaOf(CONFIG_TABLE);
export type Config = z.output<typeof configSchema>;
export type Profile = (typeof PROFILES)[number];

export type LeafKind = 'number' | 'boolean' | 'string' | 'list' | 'map';

export interface ConfigKey {
  /** Dotted key path, e.g. `agents.claude.command`. */
  path: string;
  segments: string[];
  kind: LeafKind;
  /** `RALPH_` + the path in SCREAMING_SNAKE_CASE, e.g. RALPH_AGENTS_CLAUDE_COMMAND. */
  envVar: string;
  setting: Setting;
}

/** Every settable leaf of the table, in table order. */
export const CONFIG_KEYS: readonly ConfigKey[] = collectKeys(CONFIG_TABLE, []);

/** Older or shorter names for an environment variable (design.md §4: RALPH_<AGENT>_BIN). */
export const CONFIG_ENV_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  CONFIG_KEYS.flatMap((key) => (key.setting.envAliases ?? []).map((alias) => [alias, key.path])),
);

/** File spellings of top-level keys (`quality_checks`) → the key they stand for. */
export const CONFIG_FILE_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(CONFIG_TABLE).flatMap(([key, entry]: [string, Setting | Section]) =>
    isSection(entry) ? [] : (entry.fileAliases ?? []).map((alias) => [alias, key]),
  ),
);

/**
 * What a valid value looks like, per key path (sections included), for hints
 * ("maxIterations must be …").
 */
export const CONFIG_REQUIREMENTS: Readonly<Record<string, string>> = Object.fromEntries(
  collectRequirements(CONFIG_TABLE, []),
);

function collectKeys(table: Table, segments: string[]): ConfigKey[] {
  return Object.entries(table).flatMap(([key, entry]) => {
    const path = [...segments, key];
    if (isSection(entry)) return collectKeys(entry.section, path);
    return [
      {
        path: path.join('.'),
        segments: path,
        kind: leafKind(entry.type),
        envVar: envNameOf(path),
        setting: entry,
      },
    ];
  });
}

function collectRequirements(table: Table, segments: string[]): [string, string][] {
  return Object.entries(table).flatMap(([key, entry]: [string, Setting | Section]) => {
    const path = [...segments, key];
    const own: [string, string] = [path.join('.'), requirementOf(entry)];
    return isSection(entry) ? [own, ...collectRequirements(entry.section, path)] : [own];
  });
}

function leafKind(schema: z.ZodType): LeafKind {
  const type = schema.def.type;
  if (type === 'number' || type === 'boolean') return type;
  if (type === 'record') return 'map';
  return type === 'array' ? 'list' : 'string';
}

/** One issue per unknown key, so each can be located and get its own suggestion. */
export function splitUnknownKeys(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue): z.core.$ZodIssue[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ ...issue, keys: [key] }))
      : [issue],
  );
}

/** Explains a schema issue in the user's terms; `value` is what was found at the issue's path. */
export function explainIssue(
  issue: z.core.$ZodIssue,
  value: unknown,
): { problem: string; hint: string } {
  const path = keyPathOf(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(issue.path);
    const unknown = issue.keys[0] ?? '';
    const suggestion = suggestKey(unknown, known);
    return {
      problem: `unknown setting "${[path, unknown].filter(Boolean).join('.')}"`,
      hint:
        suggestion === undefined
          ? `Known settings${path === '' ? '' : ` under ${path}`}: ${known.join(', ')}.`
          : `Did you mean "${suggestion}"?`,
    };
  }
  // A map's entry (qualityChecks.test) is judged by the map's own requirement.
  const owner = path
    .split('.')
    .map((_, index, parts) => parts.slice(0, parts.length - index).join('.'))
    .find((candidate) => CONFIG_REQUIREMENTS[candidate] !== undefined);
  const requirement = owner === undefined ? undefined : CONFIG_REQUIREMENTS[owner];
  const shown = value === undefined ? 'nothing' : JSON.stringify(value);
  return {
    problem: `invalid value ${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown} for ${path}`,
    hint: requirement === undefined ? issue.message : `${owner ?? path} must be ${requirement}.`,
  };
}

/** The dotted key path; array indexes are dropped (protectedBranches[1] → protectedBranches). */
export function keyPathOf(path: readonly PropertyKey[]): string {
  return path.filter((part): part is string => typeof part === 'string').join('.');
}

function knownKeysAt(path: readonly PropertyKey[]): string[] {
  const prefix = path.map(String);
  const keys = CONFIG_KEYS.filter((key) => prefix.every((part, i) => key.segments[i] === part))
    .map((key) => key.segments[prefix.length])
    .filter((key) => key !== undefined);
  return [...new Set(keys)];
}

/** The closest known key: the same ignoring case and `_`/`-` (max_iterations), else a near typo. */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  const squash = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(squash(unknown), squash(key));
    if (best === undefined || distance < best.distance) best = { key, distance };
  }
  const allowed = Math.max(2, Math.floor(unknown.length / 3));
  return best !== undefined && best.distance <= allowed ? best.key : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
