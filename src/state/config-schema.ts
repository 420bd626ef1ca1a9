import * as z from 'zod';
import { DEFAULT_PROTECTED_BRANCHES } from './paths.js';
import { GUARD_REQUIREMENTS, guardFileSchema, guardSchema } from './guard-config-schema.js';
import { HOOKS_REQUIREMENTS, hooksFileSchema, hooksSchema } from './hooks-config-schema.js';
import { NOTIFY_REQUIREMENTS, notifyFileSchema, notifySchema } from './notify-config-schema.js';

/**
 * The settings of config.yaml (design.md §4). Each field is defined once and used twice: optional
 * and without defaults in `configFileSchema` (one layer: a file, the environment or the flags,
 * which are merged before defaults apply), and with defaults in `configSchema` (the resolved
 * `Config`). `configFileSchema` is what the published JSON Schema is generated from. Below the
 * schemas: the key table (environment names, value kinds) and the words for explaining a
 * violation, so that adding a key here is the whole change.
 */

export const PROFILES = ['quality', 'balanced', 'budget'] as const;
export const AGENT_IDS = ['claude'] as const;

const fields = {
  maxIterations: z
    .int()
    .min(1)
    .describe('Most iterations in one run; reaching it ends the run with exit code 1. Default 20.'),
  timeoutMinutes: z
    .number()
    .positive()
    .describe('Minutes one iteration may take before its agent is stopped. Default 15.'),
  pauseSeconds: z.number().min(0).describe('Seconds to wait between iterations. Default 2.'),
  model: z
    .string()
    .min(1)
    .describe('Model for every story that does not name its own (overrides the profile).'),
  profile: z
    .enum(PROFILES)
    .describe(
      'How models are chosen when nothing names one: quality, balanced or budget. Default balanced.',
    ),
  protectedBranches: z
    .array(z.string().min(1))
    .describe(
      'Branches that get a warning when ralph derives the loop directory from them. Replaces the default [main, master, develop].',
    ),
  agent: z.enum(AGENT_IDS).describe('The coding agent to run. Default claude.'),
  claudeCommand: z
    .string()
    .min(1)
    .describe('The Claude Code executable (a path or a name on PATH). Default claude.'),
  dangerouslySkipPermissions: z
    .boolean()
    .describe(
      'Pass --dangerously-skip-permissions to Claude Code. Only inside a sandbox. Default false.',
    ),
  completionPatterns: z
    .array(z.string().min(1))
    .describe('Extra text that, in the agent output, marks the whole task list as complete.'),
  loopBackstopIterations: z
    .int()
    .min(1)
    .describe(
      'Hard limit on the iterations of an in-session loop (`ralph loop`), applied even when its max_iterations is 0 (unlimited). Default 500.',
    ),
  loopOrphanedAfterMinutes: z
    .number()
    .positive()
    .describe(
      'Minutes without activity (state file or session transcript) after which `ralph loop list` shows a loop as ORPHANED. Default 60.',
    ),
  idleTimeoutMinutes: z
    .number()
    .min(0)
    .describe(
      'Minutes an agent may print nothing before it is killed (the iteration fails). 0 turns it off. Default 5.',
    ),
  resultGraceSeconds: z
    .number()
    .positive()
    .describe(
      'Seconds an agent may keep running after printing its result line before it is killed (the result still counts). Default 30.',
    ),
  breakerNoProgress: z
    .int()
    .min(0)
    .describe(
      'Iterations in a row without a story newly passing that open the circuit breaker (a repeat of the previous error counts toward sameErrorThreshold instead). 0 turns it off. Default 3.',
    ),
  breakerSameError: z
    .int()
    .min(0)
    .describe(
      'Iterations in a row failing with the same error (numbers, ids, paths and times ignored) that open the circuit breaker. 0 turns it off. Default 5.',
    ),
  breakerPermissionDenials: z
    .int()
    .min(0)
    .describe(
      'Iterations in a row without progress in which the agent was denied a tool, that open the circuit breaker. 0 turns it off. Default 2.',
    ),
  breakerCooldownMinutes: z
    .number()
    .min(0)
    .describe(
      'Minutes an open circuit breaker stays open; the next run after that starts half-open (one iteration with progress closes it). Default 30.',
    ),
  callsPerHour: z
    .int()
    .min(0)
    .describe(
      'Most agent calls (attempts) in any hour; at the limit ralph waits. 0 turns it off. Default 100.',
    ),
  tokensPerHour: z
    .int()
    .min(1)
    .describe(
      'Most tokens (input + output + cache writes) in any hour; at the limit ralph waits. No limit by default.',
    ),
  maxCostUsd: z
    .number()
    .positive()
    .describe(
      'US dollars one run may cost (from Claude Code total_cost_usd); crossing it ends the run with exit 1. No limit by default.',
    ),
  maxStoryCostUsd: z
    .number()
    .positive()
    .describe(
      'US dollars one story may cost over all its iterations, unless the story sets its own maxCostUsd; crossing it ends the run with exit 1. No limit by default.',
    ),
  retryMax: z
    .int()
    .min(0)
    .describe(
      'Retries of an iteration after a transient failure (API 5xx/529/429, dropped connection or MCP server, a crash before any output). Default 3.',
    ),
  retryBaseDelaySeconds: z
    .number()
    .min(0)
    .describe(
      'Seconds before the first retry; each further retry waits twice as long (±20 %). Default 2.',
    ),
  retryMaxDelaySeconds: z
    .number()
    .min(0)
    .describe('The longest wait between retries, in seconds. Default 60.'),
  usageLimitAction: z
    .enum(['wait', 'exit', 'ask'])
    .describe(
      'On a usage limit: wait for the reset and resume, exit (state PAUSED, exit code 2), or ask on a terminal (exit after askTimeoutSeconds without an answer). Default wait.',
    ),
  usageLimitMarginSeconds: z
    .number()
    .min(0)
    .describe('Seconds to wait past a usage limit reset time before starting again. Default 60.'),
  usageLimitFirstBackoffMinutes: z
    .number()
    .positive()
    .describe(
      'Minutes to wait on a usage limit whose reset time is unknown; doubles for each such limit in a row. Default 5.',
    ),
  usageLimitMaxBackoffMinutes: z
    .number()
    .positive()
    .describe(
      'The longest wait on a usage limit whose reset time is unknown, in minutes. Default 60.',
    ),
  usageLimitAskTimeoutSeconds: z
    .number()
    .positive()
    .describe('Seconds the `ask` question waits for an answer before ralph exits. Default 30.'),
};

export const configFileSchema = z
  .strictObject({
    maxIterations: fields.maxIterations.optional(),
    timeoutMinutes: fields.timeoutMinutes.optional(),
    pauseSeconds: fields.pauseSeconds.optional(),
    model: fields.model.optional(),
    profile: fields.profile.optional(),
    protectedBranches: fields.protectedBranches.optional(),
    agent: fields.agent.optional(),
    agents: z
      .strictObject({
        claude: z
          .strictObject({
            command: fields.claudeCommand.optional(),
            dangerouslySkipPermissions: fields.dangerouslySkipPermissions.optional(),
          })
          .optional()
          .describe('Settings for Claude Code.'),
      })
      .optional()
      .describe('Per-agent settings.'),
    completionPatterns: fields.completionPatterns.optional(),
    loop: z
      .strictObject({
        backstopIterations: fields.loopBackstopIterations.optional(),
        orphanedAfterMinutes: fields.loopOrphanedAfterMinutes.optional(),
      })
      .optional()
      .describe('In-session loops: `ralph loop` and the Claude Code Stop hook.'),
    idleTimeoutMinutes: fields.idleTimeoutMinutes.optional(),
    resultGraceSeconds: fields.resultGraceSeconds.optional(),
    circuitBreaker: z
      .strictObject({
        noProgressThreshold: fields.breakerNoProgress.optional(),
        sameErrorThreshold: fields.breakerSameError.optional(),
        permissionDenialThreshold: fields.breakerPermissionDenials.optional(),
        cooldownMinutes: fields.breakerCooldownMinutes.optional(),
      })
      .optional()
      .describe(
        'When to stop a loop that is stuck (exit code 1); `ralph run --reset-breaker` closes it.',
      ),
    rateLimit: z
      .strictObject({
        callsPerHour: fields.callsPerHour.optional(),
        tokensPerHour: fields.tokensPerHour.optional(),
      })
      .optional()
      .describe('A sliding one-hour window over agent calls and tokens; ralph waits at the limit.'),
    budget: z
      .strictObject({
        maxCostUsd: fields.maxCostUsd.optional(),
        maxStoryCostUsd: fields.maxStoryCostUsd.optional(),
      })
      .optional()
      .describe('Cost limits; crossing one ends the run cleanly (exit code 1, reason budget).'),
    retry: z
      .strictObject({
        maxRetries: fields.retryMax.optional(),
        baseDelaySeconds: fields.retryBaseDelaySeconds.optional(),
        maxDelaySeconds: fields.retryMaxDelaySeconds.optional(),
      })
      .optional()
      .describe('Retries of an iteration after a transient failure, with exponential backoff.'),
    usageLimit: z
      .strictObject({
        action: fields.usageLimitAction.optional(),
        marginSeconds: fields.usageLimitMarginSeconds.optional(),
        firstBackoffMinutes: fields.usageLimitFirstBackoffMinutes.optional(),
        maxBackoffMinutes: fields.usageLimitMaxBackoffMinutes.optional(),
        askTimeoutSeconds: fields.usageLimitAskTimeoutSeconds.optional(),
      })
      .optional()
      .describe("What to do when the Claude subscription's usage limit is reached."),
    guard: guardFileSchema,
    notify: notifyFileSchema,
    hooks: hooksFileSchema,
  })
  .describe('ralph configuration (~/.config/ralph/config.yaml or <repo>/.ralph/config.yaml).');
/** One layer of settings: a config file, the environment or the CLI flags. */
export type ConfigFile = z.input<typeof configFileSchema>;

export const configSchema = z.strictObject({
  maxIterations: fields.maxIterations.default(20),
  timeoutMinutes: fields.timeoutMinutes.default(15),
  pauseSeconds: fields.pauseSeconds.default(2),
  model: fields.model.optional(),
  profile: fields.profile.default('balanced'),
  protectedBranches: fields.protectedBranches.default(() => [...DEFAULT_PROTECTED_BRANCHES]),
  agent: fields.agent.default('claude'),
  agents: z
    .strictObject({
      claude: z
        .strictObject({
          command: fields.claudeCommand.optional(),
          dangerouslySkipPermissions: fields.dangerouslySkipPermissions.default(false),
        })
        .prefault({}),
    })
    .prefault({}),
  completionPatterns: fields.completionPatterns.default(() => []),
  loop: z
    .strictObject({
      backstopIterations: fields.loopBackstopIterations.default(500),
      orphanedAfterMinutes: fields.loopOrphanedAfterMinutes.default(60),
    })
    .prefault({}),
  idleTimeoutMinutes: fields.idleTimeoutMinutes.default(5),
  resultGraceSeconds: fields.resultGraceSeconds.default(30),
  circuitBreaker: z
    .strictObject({
      noProgressThreshold: fields.breakerNoProgress.default(3),
      sameErrorThreshold: fields.breakerSameError.default(5),
      permissionDenialThreshold: fields.breakerPermissionDenials.default(2),
      cooldownMinutes: fields.breakerCooldownMinutes.default(30),
    })
    .prefault({}),
  rateLimit: z
    .strictObject({
      callsPerHour: fields.callsPerHour.default(100),
      tokensPerHour: fields.tokensPerHour.optional(),
    })
    .prefault({}),
  budget: z
    .strictObject({
      maxCostUsd: fields.maxCostUsd.optional(),
      maxStoryCostUsd: fields.maxStoryCostUsd.optional(),
    })
    .prefault({}),
  retry: z
    .strictObject({
      maxRetries: fields.retryMax.default(3),
      baseDelaySeconds: fields.retryBaseDelaySeconds.default(2),
      maxDelaySeconds: fields.retryMaxDelaySeconds.default(60),
    })
    .prefault({}),
  usageLimit: z
    .strictObject({
      action: fields.usageLimitAction.default('wait'),
      marginSeconds: fields.usageLimitMarginSeconds.default(60),
      firstBackoffMinutes: fields.usageLimitFirstBackoffMinutes.default(5),
      maxBackoffMinutes: fields.usageLimitMaxBackoffMinutes.default(60),
      askTimeoutSeconds: fields.usageLimitAskTimeoutSeconds.default(30),
    })
    .prefault({}),
  guard: guardSchema,
  notify: notifySchema,
  hooks: hooksSchema,
});
export type Config = z.output<typeof configSchema>;
export type Profile = (typeof PROFILES)[number];

/**
 * What a valid value looks like, per key path, for hints ("maxIterations must be …"). A test
 * keeps this in step with the schema.
 */
export const CONFIG_REQUIREMENTS: Readonly<Record<string, string>> = {
  ...GUARD_REQUIREMENTS,
  ...NOTIFY_REQUIREMENTS,
  ...HOOKS_REQUIREMENTS,
  maxIterations: 'a whole number ≥ 1',
  timeoutMinutes: 'a number > 0',
  pauseSeconds: 'a number ≥ 0',
  model: 'a model name such as claude-sonnet-4-5',
  profile: `one of ${PROFILES.join(', ')}`,
  protectedBranches: 'a list of branch names',
  agent: `one of ${AGENT_IDS.join(', ')}`,
  agents: 'a mapping with one entry per agent (claude)',
  'agents.claude': 'a mapping (command, dangerouslySkipPermissions)',
  'agents.claude.command': 'a path or command name',
  'agents.claude.dangerouslySkipPermissions': 'true or false',
  completionPatterns: 'a list of strings',
  loop: 'a mapping (backstopIterations, orphanedAfterMinutes)',
  'loop.backstopIterations': 'a whole number ≥ 1',
  'loop.orphanedAfterMinutes': 'a number > 0',
  idleTimeoutMinutes: 'a number ≥ 0 (0: no idle timeout)',
  resultGraceSeconds: 'a number > 0',
  circuitBreaker:
    'a mapping (noProgressThreshold, sameErrorThreshold, permissionDenialThreshold, cooldownMinutes)',
  'circuitBreaker.noProgressThreshold': 'a whole number ≥ 0 (0: off)',
  'circuitBreaker.sameErrorThreshold': 'a whole number ≥ 0 (0: off)',
  'circuitBreaker.permissionDenialThreshold': 'a whole number ≥ 0 (0: off)',
  'circuitBreaker.cooldownMinutes': 'a number ≥ 0',
  rateLimit: 'a mapping (callsPerHour, tokensPerHour)',
  'rateLimit.callsPerHour': 'a whole number ≥ 0 (0: no limit)',
  'rateLimit.tokensPerHour': 'a whole number ≥ 1',
  budget: 'a mapping (maxCostUsd, maxStoryCostUsd)',
  'budget.maxCostUsd': 'an amount in US dollars > 0',
  'budget.maxStoryCostUsd': 'an amount in US dollars > 0',
  retry: 'a mapping (maxRetries, baseDelaySeconds, maxDelaySeconds)',
  'retry.maxRetries': 'a whole number ≥ 0',
  'retry.baseDelaySeconds': 'a number ≥ 0',
  'retry.maxDelaySeconds': 'a number ≥ 0',
  usageLimit:
    'a mapping (action, marginSeconds, firstBackoffMinutes, maxBackoffMinutes, askTimeoutSeconds)',
  'usageLimit.action': 'one of wait, exit, ask',
  'usageLimit.marginSeconds': 'a number ≥ 0',
  'usageLimit.firstBackoffMinutes': 'a number > 0',
  'usageLimit.maxBackoffMinutes': 'a number > 0',
  'usageLimit.askTimeoutSeconds': 'a number > 0',
};

export type LeafKind = 'number' | 'boolean' | 'string' | 'list';

export interface ConfigKey {
  /** Dotted key path, e.g. `agents.claude.command`. */
  path: string;
  segments: string[];
  kind: LeafKind;
  /** `RALPH_` + the path in SCREAMING_SNAKE_CASE, e.g. RALPH_AGENTS_CLAUDE_COMMAND. */
  envVar: string;
}

/** Every settable leaf of the file schema, found by walking it so new keys need no list. */
export const CONFIG_KEYS: readonly ConfigKey[] = collectKeys(configFileSchema, []);

/** Older or shorter names for an environment variable (design.md §4: RALPH_<AGENT>_BIN). */
export const CONFIG_ENV_ALIASES: Readonly<Record<string, string>> = {
  RALPH_CLAUDE_BIN: 'agents.claude.command',
};

function collectKeys(schema: z.ZodType, segments: string[]): ConfigKey[] {
  const inner = schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema;
  if (inner instanceof z.ZodObject) {
    return Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([key, child]) =>
      collectKeys(child, [...segments, key]),
    );
  }
  return [
    {
      path: segments.join('.'),
      segments,
      kind: leafKind(inner),
      envVar: `RALPH_${segments.map(toScreamingSnake).join('_')}`,
    },
  ];
}

function leafKind(schema: z.ZodType): LeafKind {
  if (schema instanceof z.ZodNumber) return 'number';
  if (schema instanceof z.ZodBoolean) return 'boolean';
  if (schema instanceof z.ZodArray) return 'list';
  return 'string';
}

function toScreamingSnake(camel: string): string {
  return camel.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
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
  const requirement = CONFIG_REQUIREMENTS[path];
  const shown = value === undefined ? 'nothing' : JSON.stringify(value);
  return {
    problem: `invalid value ${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown} for ${path}`,
    hint: requirement === undefined ? issue.message : `${path} must be ${requirement}.`,
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

/** Each setting's schema once, for other boundaries that take the same values (startRun's options). */
export { fields as configFields };
