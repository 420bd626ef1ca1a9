import * as z from 'zod';
import type { AgentAdapter } from '../agents/types.js';
import type { ProcessGroups } from '../agents/process-groups.js';
import type { Reporter } from '../core/events.js';
import type { LoopDependencies } from '../core/loop-types.js';
import type { Clock } from '../safety/clock.js';
import type { ConfigFile } from '../state/config-schema.js';
import { configLayerOf as layerOf, settingAt } from '../state/config-facts.js';
import { RalphError } from '../util/errors.js';
import { codeHooksSchema } from '../hooks/code-hooks.js';

/**
 * What `startRun` and `planRun` take: one option for every `ralph run` flag (same names, same
 * units), plus what a program injects instead of a terminal — the environment, the cancel signal,
 * reporters, the clock, the agent. Values are checked here (a misspelt option is an error naming
 * the nearest one), their ranges by the same schemas as config.yaml.
 */

const instance = <T>(name: string, test: (value: unknown) => boolean) =>
  z.custom<T>(test, { message: `expected ${name}` });
const isFunction = (value: unknown): boolean => typeof value === 'function';

const adapterSchema = instance<AgentAdapter>(
  'an AgentAdapter (id, probe, commandLine, run)',
  (value) => hasMethods(value, 'probe', 'commandLine', 'run'),
);

export const runOptionsSchema = z.strictObject({
  /** The loop directory; default `.ralph/<branch>/` of the repository around `cwd`. */
  dir: z.string().min(1).optional(),
  /** The repository the agent works in; default the process's working directory. */
  cwd: z.string().min(1).optional(),
  /**
   * The environment: RALPH_* settings are read from it and the agent runs with it. Required: the
   * library never reads process.env itself (pass `process.env` to behave like the CLI).
   */
  env: instance<Readonly<Record<string, string | undefined>>>(
    'an object of environment variables (process.env, or your own)',
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      Object.values(value).every((each) => each === undefined || typeof each === 'string'),
  ),
  /** Where the user config lives (`~/.config/ralph`); default env.HOME. */
  homeDir: z.string().optional(),
  maxIterations: settingAt('maxIterations').type.optional(),
  timeoutMinutes: settingAt('timeoutMinutes').type.optional(),
  /** A prompt template file; default DIR/prompt.md, else the built-in one. */
  promptFile: z.string().min(1).optional(),
  model: settingAt('model').type.optional(),
  profile: settingAt('profile').type.optional(),
  pauseSeconds: settingAt('pauseSeconds').type.optional(),
  idleTimeoutMinutes: settingAt('idleTimeoutMinutes').type.optional(),
  maxCostUsd: settingAt('budget.maxCostUsd').type.optional(),
  onUsageLimit: settingAt('usageLimit.action').type.optional(),
  /** `--rate-limit`: most agent calls in any hour (0: off). */
  callsPerHour: settingAt('rateLimit.callsPerHour').type.optional(),
  resetBreaker: z.boolean().optional(),
  dangerouslySkipPermissions: z.boolean().optional(),
  skipPreflight: z.boolean().optional(),
  /** Run the agent inside the OS sandbox (`--no-sandbox`: false); default config sandbox.enabled. */
  sandbox: z.boolean().optional(),
  /** Send the notifications config `notify` asks for (default true). */
  notify: z.boolean().optional(),
  /** Copy a feature this run completes into DIR/archive/ (default true). */
  archive: z.boolean().optional(),
  /** The agent: its executable (default RALPH_CLAUDE_BIN / agents.claude.command / `claude`), or an adapter. */
  agent: z
    .strictObject({
      id: settingAt('agent').type.optional(),
      command: z.string().min(1).optional(),
      adapter: adapterSchema.optional(),
    })
    .refine((agent) => agent.adapter === undefined || agent.command === undefined, {
      message: 'give either a command or an adapter, not both',
    })
    .optional(),
  /** Aborting pauses the run: its agent's process tree is stopped, state PAUSED, resumable. */
  signal: instance<AbortSignal>(
    'an AbortSignal',
    (value) => value instanceof AbortSignal,
  ).optional(),
  /** More reporters of the run's LoopEvents (the files in DIR are always written). */
  reporters: z
    .array(instance<Reporter>('a Reporter', (value) => hasMethods(value, 'onEvent')))
    .optional(),
  /**
   * Hooks in code, per point (`{ post_iteration: [notify] }`): async functions that get the
   * RALPH_* variables a hook script gets. They run before the loop directory's hook scripts, in
   * the order given, whatever config `hooks.enabled` says (that is about the scripts); one that
   * throws is a warning, like a failing script.
   */
  hooks: codeHooksSchema.optional(),
  /** Lines for a person that are no LoopEvent: hook output, the guard service failing. */
  log: instance<(line: string) => void>('a function', isFunction).optional(),
  /** Where the notify bell rings (a terminal); none by default. */
  terminal: instance<NodeJS.WritableStream>('a stream', (value) =>
    hasMethods(value, 'write'),
  ).optional(),
  clock: instance<Clock>('a Clock (now, sleep)', (value) =>
    hasMethods(value, 'now', 'sleep'),
  ).optional(),
  /** `onUsageLimit: 'ask'`: how to ask; without it ralph exits at a usage limit. */
  askUsageLimit: instance<NonNullable<LoopDependencies['askUsageLimit']>>(
    'a function',
    isFunction,
  ).optional(),
  /** The run's live agent groups; pass one to stop or continue them from outside (Ctrl+Z). */
  processGroups: instance<ProcessGroups>('ProcessGroups (add, delete, signalAll)', (value) =>
    hasMethods(value, 'add', 'delete', 'signalAll'),
  ).optional(),
});

/** An object with these functions: what the run will call must be callable. */
function hasMethods(value: unknown, ...names: string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === 'function');
}

export type RunOptions = z.input<typeof runOptionsSchema>;
export type CheckedRunOptions = z.output<typeof runOptionsSchema>;

/** The options, checked; a wrong one is a RalphError naming it and what it should be. */
export function checkRunOptions(options: RunOptions): CheckedRunOptions {
  const parsed = runOptionsSchema.safeParse(options);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join('.') ?? '';
  const known = Object.keys(runOptionsSchema.shape);
  const unknown =
    issue?.code === 'unrecognized_keys'
      ? issue.keys.map((key) => [path, key].filter(Boolean).join('.'))
      : [];
  const hint =
    unknown.length > 0
      ? `known options: ${known.join(', ')}`
      : 'see the README, "Use as a library"';
  const where = unknown.length > 0 ? `unknown option ${unknown.join(', ')}` : `option ${path}`;
  throw new RalphError('USAGE', `startRun: ${where}: ${issue?.message ?? 'invalid'}`, { hint });
}

/** The flags' layer of the configuration: it wins over RALPH_*, config files and defaults. */
export function configLayerOf(options: CheckedRunOptions): ConfigFile {
  const { agent } = options;
  return layerOf({
    maxIterations: options.maxIterations,
    timeoutMinutes: options.timeoutMinutes,
    model: options.model,
    profile: options.profile,
    pauseSeconds: options.pauseSeconds,
    idleTimeoutMinutes: options.idleTimeoutMinutes,
    'budget.maxCostUsd': options.maxCostUsd,
    'usageLimit.action': options.onUsageLimit,
    'rateLimit.callsPerHour': options.callsPerHour,
    agent: agent?.id,
    'agents.claude.command': agent?.command,
    'sandbox.enabled': options.sandbox,
    'agents.claude.dangerouslySkipPermissions':
      options.dangerouslySkipPermissions === true ? true : undefined,
  });
}
