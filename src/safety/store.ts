import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { writeFileAtomic } from '../state/atomic-write.js';
import { loopPaths } from '../state/paths.js';
import { RalphError } from '../util/errors.js';
import { budgetStateSchema, EMPTY_BUDGET } from './budget.js';
import { breakerStateSchema, INITIAL_BREAKER } from './circuit-breaker.js';
import { EMPTY_RATE_WINDOW, rateWindowSchema } from './rate-limiter.js';
import { usageWindowSchema } from './usage-windows.js';

/**
 * safety.json: the state of every safety policy of one loop directory, so that a restart keeps
 * the breaker, the rate window, what each story has cost, and a usage-limit wait in progress.
 * Validated on read, written atomically; the policies themselves never touch files.
 */

export const SAFETY_SCHEMA_VERSION = 1;

const timestamp = z.iso.datetime({ offset: true });

export const pendingWaitSchema = z.object({
  /** The iteration and attempt that hit the limit; the next attempt of it resumes the story. */
  iteration: z.int().min(1),
  attempt: z.int().min(1),
  storyId: z.string(),
  /** Do not start an agent before this (the reset plus a margin, or the backoff's end). */
  until: timestamp,
  resetAt: timestamp.optional(),
  message: z.string(),
  /** Where the limit was seen: rate_limit_event, result, final_text or stderr. */
  source: z.string(),
  /** The window (five_hour, seven_day, …) when the event named it. */
  window: z.string().optional(),
});
export type PendingWait = z.infer<typeof pendingWaitSchema>;

export const safetyFileSchema = z.looseObject({
  schemaVersion: z.literal(SAFETY_SCHEMA_VERSION),
  updatedAt: timestamp,
  breaker: breakerStateSchema,
  rateLimit: rateWindowSchema,
  budget: budgetStateSchema,
  usageLimit: z.object({
    pending: pendingWaitSchema.optional(),
    /** Limits in a row without a known reset time: the backoff's exponent. */
    unknownResetStreak: z.int().min(0),
  }),
  /** The usage windows (five_hour, seven_day, …) as the latest rate_limit_events reported them. */
  usageWindows: z.record(z.string(), usageWindowSchema).optional(),
});
export type SafetyFile = z.infer<typeof safetyFileSchema>;

export function initialSafety(now: Date): SafetyFile {
  return {
    schemaVersion: SAFETY_SCHEMA_VERSION,
    updatedAt: now.toISOString(),
    breaker: { ...INITIAL_BREAKER },
    rateLimit: EMPTY_RATE_WINDOW,
    budget: EMPTY_BUDGET,
    usageLimit: { unknownResetStreak: 0 },
  };
}

/** The loop directory's safety state; the initial state when no run has written one. */
export async function readSafety(dir: string, now: Date): Promise<SafetyFile> {
  const file = loopPaths(dir).safety;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return initialSafety(now);
    throw error;
  }
  const invalid = (detail: string, cause?: unknown) =>
    new RalphError('INVALID_JSON', `${file} is not a valid safety state file: ${detail}`, {
      hint: 'Delete it to start over; that also resets the circuit breaker, the rate window and the per-story costs.',
      location: { file },
      cause,
    });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid('not JSON', error);
  }
  const parsed = safetyFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

export async function writeSafety(dir: string, state: SafetyFile): Promise<void> {
  const valid = safetyFileSchema.parse(state);
  await writeFileAtomic(loopPaths(dir).safety, `${JSON.stringify(valid, null, 2)}\n`);
}
