import type { LoopContext, VerificationSettings } from './loop-types.js';
import { fingerprintChanges, readTestFingerprint } from './test-integrity.js';
import type { Check } from './verify-checks.js';

export async function testFingerprint(
  ctx: LoopContext,
  settings: VerificationSettings,
): Promise<Map<string, string> | undefined> {
  const runner = ctx.deps.runCheck;
  if (!settings.testIntegrity || runner === undefined) return undefined;
  return readTestFingerprint(runner, ctx.options.cwd, settings.testFiles);
}

/**
 * The test files hashed again once a story's checks ran: a process that swapped them only while
 * the checks ran (and put them back after) is caught when it is late or careless; the sure
 * stop is that every process of the run is stopped before the checks (orphans.ts).
 */
export async function swappedTests(
  ctx: LoopContext,
  settings: VerificationSettings,
  before: ReadonlyMap<string, string> | undefined,
): Promise<Check | undefined> {
  if (before === undefined) return undefined;
  const after = await testFingerprint(ctx, settings);
  const changed = after === undefined ? [] : fingerprintChanges(before, after);
  if (changed.length === 0) return undefined;
  return {
    kind: 'integrity',
    name: 'test files',
    run: {
      exitCode: 1,
      timedOut: false,
      durationMs: 0,
      output: `test files changed while the checks ran: ${changed.join(', ')}`,
    },
  };
}
