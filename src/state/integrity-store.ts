import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { RalphError } from '../util/errors.js';
import { writeFileAtomic } from './atomic-write.js';
import { loopStateDir } from './user-state.js';

/**
 * Per loop directory, what test integrity compares with across runs (issue 12): the tree where
 * every check last held (the integrity base) and the test counts the checks' runners reported
 * then. Kept in ralph's user state dir, so tampering rejected in one run is still tampering in
 * the next: it is never the starting point of a fresh comparison.
 */

const countsSchema = z.object({
  runner: z.string(),
  passed: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
  todo: z.number().int().nonnegative(),
});
export type StoredCounts = z.infer<typeof countsSchema>;

export const integrityStateSchema = z.object({
  /** The loop directory this belongs to, for a person reading the file. */
  loopDir: z.string(),
  base: z
    .object({
      commit: z.string().regex(/^[0-9a-f]{40,64}$/),
      /** Untracked files then that are no tests (never blamed on the agent). */
      untracked: z.array(z.string()),
      /** Untracked test files then: path → the blob ralph wrote of them. */
      testBlobs: z.record(z.string(), z.string()).default({}),
      /** Executables the checks start then: path → hash (runner-config.ts). */
      executables: z.record(z.string(), z.string()).optional(),
      at: z.string(),
    })
    .optional(),
  /** Per check (`kind:command`), its runner's counts at the last verified state. */
  tests: z.record(z.string(), countsSchema).default({}),
});
export type IntegrityState = z.infer<typeof integrityStateSchema>;

export function integrityStateFile(stateDir: string, loopDir: string): string {
  return join(loopStateDir(stateDir, loopDir), 'integrity.json');
}

export async function readIntegrityState(
  stateDir: string,
  loopDir: string,
): Promise<IntegrityState> {
  const file = integrityStateFile(stateDir, loopDir);
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return { loopDir, tests: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = integrityStateSchema.safeParse(parsed);
  if (!result.success) {
    const field = result.error.issues[0]?.path.join('.') ?? '';
    throw new RalphError('INVALID_JSON', `ralph's integrity state ${file} is not readable`, {
      location: { file, ...(field === '' ? {} : { field }) },
      hint: `Delete ${file} to make the work tree as it is now the base test integrity compares with.`,
    });
  }
  return result.data;
}

export async function writeIntegrityState(stateDir: string, state: IntegrityState): Promise<void> {
  const file = integrityStateFile(stateDir, state.loopDir);
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
}
