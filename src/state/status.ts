import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { RalphError } from '../util/errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { loopPaths } from './paths.js';

/**
 * status.json (design.md §2): the live, machine-readable state of a run. The loop writes it;
 * `ralph status`, `list` and the monitor read it. Objects are loose so later versions can add
 * fields without breaking older readers; a breaking change bumps schemaVersion.
 */

export const STATUS_SCHEMA_VERSION = 1;

// The run's state, why it stopped and what it waits for are facts status.json shares with the
// LoopEvent schema (core/events.ts), which takes them from here: the lower layer owns them.

export const runStateSchema = z
  .enum(['RUNNING', 'PAUSED', 'COMPLETE', 'REACHED_LIMIT', 'ERROR'])
  .describe('RUNNING while the loop works; PAUSED after Ctrl+C (resumable); the rest are final.');
export type RunState = z.infer<typeof runStateSchema>;

/** Why a run ended, for machines; `invalid_input`: the task list or config needs a fix (exit 2). */
export const STOP_REASONS = [
  'complete',
  'max_iterations',
  'blocked',
  'breaker',
  'budget',
  'usage_limit',
  'fatal',
  'invalid_input',
  'interrupted',
  'verification_failed',
] as const;

/** What ralph waits for: the hourly call/token window, a usage-limit reset, a retry backoff. */
export const WAIT_REASONS = ['rate_limit', 'usage_limit', 'retry'] as const;

const timestamp = z.iso.datetime({ offset: true });
const count = z.int().min(0);
const tokensSchema = z.looseObject({
  inputTokens: count,
  outputTokens: count,
  cacheReadInputTokens: count,
  cacheCreationInputTokens: count,
});

export const statusSchema = z.looseObject({
  schemaVersion: z.literal(STATUS_SCHEMA_VERSION).describe('Format version of this file.'),
  state: runStateSchema,
  pid: z.int().positive().optional().describe('Process id of the ralph that runs the loop.'),
  startedAt: timestamp.describe('When the run started (ISO 8601).'),
  updatedAt: timestamp.describe('When this file was last written (ISO 8601).'),
  iteration: count.describe('The current (or last) iteration, counted from 1; 0 before the first.'),
  maxIterations: z.int().min(1).describe('The iteration limit of this run.'),
  currentStory: z
    .looseObject({
      id: z.string(),
      title: z.string(),
      model: z
        .string()
        .optional()
        .describe('The model the agent runs (from its init line), else the one ralph chose.'),
    })
    .optional()
    .describe('The story the agent works on now.'),
  storiesTotal: count.describe('Stories in the task list.'),
  storiesPassing: count.describe('Stories marked as passing.'),
  lastResult: z.string().optional().describe('How the last iteration ended.'),
  exitReason: z.string().optional().describe('Why the run stopped, once it has.'),
  costUsd: z.number().min(0).optional().describe('Agent cost so far, in US dollars.'),
  tokens: tokensSchema.optional().describe('Tokens the agent used in this run so far.'),
  // A string, not the enum: a newer ralph may stop for a reason this version does not know.
  stopReason: z
    .string()
    .optional()
    .describe(`Why the run stopped, for machines: ${STOP_REASONS.join(', ')}.`),
  hint: z
    .string()
    .optional()
    .describe('What to do about how the run stopped, when a person must act.'),
  attempt: count.optional().describe('The attempt of the current iteration (retries count up).'),
  lastIteration: z
    .looseObject({
      iteration: count,
      attempt: count,
      outcome: z.string(),
      classification: z.string().optional(),
      costUsd: z.number().min(0).optional(),
      tokens: tokensSchema.optional(),
      durationMs: z.number().min(0),
    })
    .optional()
    .describe('How the last attempt ended, its cost and tokens.'),
  stories: z
    .record(z.string(), z.looseObject({ costUsd: z.number().min(0), tokens: tokensSchema }))
    .optional()
    .describe('Cost and tokens per story worked on in this run (over all its runs so far).'),
  breaker: z
    .looseObject({
      state: z.enum(['CLOSED', 'OPEN', 'HALF_OPEN']),
      noProgress: count,
      sameError: count,
      permissionDenials: count,
      thresholds: z.looseObject({ noProgress: count, sameError: count, permissionDenials: count }),
      reason: z.string().optional(),
      cooldownUntil: timestamp.optional(),
    })
    .optional()
    .describe('The circuit breaker: its state and counts against their thresholds.'),
  rateLimit: z
    .looseObject({
      callsLastHour: count.optional(),
      callsPerHour: count.optional(),
      tokensPerHour: count.optional(),
    })
    .optional()
    .describe('Agent calls in the last hour against the hourly limit.'),
  waiting: z
    .looseObject({
      reason: z.enum(WAIT_REASONS),
      since: timestamp,
      until: timestamp,
      remainingSeconds: z.number().min(0),
      detail: z.string(),
    })
    .optional()
    .describe(
      'Set while ralph waits (usage-limit reset, rate limit, retry backoff): the countdown.',
    ),
  usageWindows: z
    .record(
      z.string(),
      z.looseObject({
        utilization: z.number().min(0).max(1).optional(),
        resetsAt: timestamp.optional(),
        status: z.string().optional(),
      }),
    )
    .optional()
    .describe(
      "The subscription's usage windows (five_hour, seven_day, …) as Claude Code last reported them: use 0–1 and reset time.",
    ),
  pace: z.number().min(0).max(1).optional().describe('limits.pace, when pacing is on.'),
  retrying: z
    .looseObject({
      at: timestamp,
      retry: count.optional(),
      maxRetries: count.optional(),
      delayMs: z.number().min(0).optional(),
      errorStatus: z.number().optional(),
      error: z.string().optional(),
    })
    .optional()
    .describe(
      'Set while Claude Code retries an API request in the current attempt (its api_retry line): which retry, why.',
    ),
});
export type Status = z.infer<typeof statusSchema>;

/** The status of a loop directory, or undefined when no run has written one yet. */
export async function readStatus(dir: string): Promise<Status | undefined> {
  const file = loopPaths(dir).status;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // A corrupt file is reported, never repaired: the loop that owns it rewrites it whole.
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RalphError('INVALID_JSON', `${file} is not valid JSON`, {
      hint: 'The next run rewrites it; delete it if no run is active.',
      location: { file },
      cause: error,
    });
  }
  const parsed = statusSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    throw new RalphError(
      'INVALID_JSON',
      `${file} is not a valid status file: ${field === '' ? '' : `${field}: `}${issue?.message ?? 'invalid'}`,
      {
        hint: isNewerVersion(json)
          ? 'It was written by a newer ralph; upgrade ralph to read it.'
          : 'The next run rewrites it; delete it if no run is active.',
        location: { file, field },
      },
    );
  }
  return parsed.data;
}

/** Validates (a bad status is a bug in the writer) and writes status.json atomically. */
export async function writeStatus(dir: string, status: Status): Promise<void> {
  const valid = statusSchema.parse(status);
  await writeFileAtomic(loopPaths(dir).status, `${JSON.stringify(valid, null, 2)}\n`);
}

function isNewerVersion(json: unknown): boolean {
  if (typeof json !== 'object' || json === null || !('schemaVersion' in json)) return false;
  const version = json.schemaVersion;
  return typeof version === 'number' && version > STATUS_SCHEMA_VERSION;
}
