import type { Story } from '../plan/types.js';
import type { EvidenceEntry } from '../state/evidence-log.js';
import type { LoopEvent } from './events.js';
import type { CheckRun, LoopContext, VerificationSettings } from './loop-types.js';

/** The checks of verify.ts: how each runs, how it reads in events, evidence and messages. */

export type CheckKind = 'verify' | 'quality' | 'integrity';

export interface Check {
  kind: CheckKind;
  name?: string | undefined;
  command?: string | undefined;
  run: CheckRun;
}

/** Output kept per check: enough to see the failing assertion, small enough for progress.txt. */
const TAIL_CHARS = 2000;

/** HEAD now, for the evidence (undefined outside git). */
export async function headCommit(ctx: LoopContext): Promise<string | undefined> {
  return (await ctx.deps.runCheck?.git(['rev-parse', '--verify', 'HEAD'], ctx.options.cwd))?.trim();
}

export async function runQualityChecks(
  ctx: LoopContext,
  settings: VerificationSettings,
): Promise<Check[]> {
  const checks: Check[] = [];
  for (const [name, command] of Object.entries(settings.qualityChecks)) {
    const check = await runShell(ctx, settings, 'quality', name, command);
    checks.push(check);
    if (failed(check)) break;
  }
  return checks;
}

export async function runShell(
  ctx: LoopContext,
  settings: VerificationSettings,
  kind: CheckKind,
  name: string | undefined,
  command: string,
): Promise<Check> {
  const runner = ctx.deps.runCheck;
  const run: CheckRun =
    runner === undefined
      ? {
          exitCode: undefined,
          timedOut: false,
          durationMs: 0,
          output: 'ralph has no check runner: nothing ran this check',
        }
      : await runner.shell(command, {
          cwd: ctx.options.cwd,
          timeoutMs: settings.timeoutMs,
          signal: ctx.deps.signal,
        });
  return { kind, name, command, run };
}

export function failed(check: Check): boolean {
  return check.run.exitCode !== 0;
}

export function describeFailure(check: Check): string {
  if (check.kind === 'integrity') {
    return `the iteration weakened the tests: ${check.run.output.split('\n').join('; ')}`;
  }
  const what =
    check.kind === 'quality'
      ? `quality check ${check.name ?? ''} (\`${check.command ?? ''}\`)`
      : `\`${check.command ?? ''}\``;
  const how = check.run.timedOut
    ? 'timed out'
    : check.run.exitCode === undefined
      ? 'could not run'
      : `exit ${check.run.exitCode}`;
  return `${what} failed (${how})`;
}

export function summary(
  check: Check,
): Extract<LoopEvent, { type: 'story_verified' }>['checks'][number] {
  return {
    kind: check.kind,
    ...(check.name === undefined ? {} : { name: check.name }),
    ...(check.command === undefined ? {} : { command: check.command }),
    ...(check.run.exitCode === undefined ? {} : { exitCode: check.run.exitCode }),
    ...(check.run.timedOut ? { timedOut: true } : {}),
    durationMs: check.run.durationMs,
  };
}

export function rejectEvent(
  ctx: LoopContext,
  iteration: number,
  story: Story,
  failure: Check,
  reason: string,
  rejections: number,
): LoopEvent {
  return {
    type: 'story_rejected',
    at: ctx.at(),
    iteration,
    story: { id: story.id, title: story.title },
    failed: summary(failure),
    reason,
    outputTail: tail(failure.run.output),
    rejections,
  };
}

export function toEvidence(
  ctx: LoopContext,
  storyId: string,
  iteration: number,
  commit: string | undefined,
  checks: readonly Check[],
): EvidenceEntry[] {
  const base = { at: ctx.at(), storyId, iteration, ...(commit === undefined ? {} : { commit }) };
  if (checks.length === 0) {
    return [{ ...base, kind: 'unchecked', durationMs: 0, outputTail: '', verdict: 'unchecked' }];
  }
  return checks.map((check) => ({
    ...base,
    kind: check.kind,
    ...(check.name === undefined ? {} : { name: check.name }),
    ...(check.command === undefined ? {} : { command: check.command }),
    ...(check.run.exitCode === undefined ? {} : { exitCode: check.run.exitCode }),
    ...(check.run.timedOut ? { timedOut: true } : {}),
    durationMs: check.run.durationMs,
    outputTail: tail(check.run.output),
    verdict: failed(check) ? 'fail' : 'pass',
    ...(check.run.tests === undefined ? {} : { tests: check.run.tests }),
    ...(check.kind === 'integrity' || check.run.tests !== undefined || failed(check)
      ? {}
      : {
          note: 'no test counts: ralph does not know this output, so only the file scan guarded the tests',
        }),
  }));
}

export function tail(text: string): string {
  return text.length > TAIL_CHARS ? `…${text.slice(-TAIL_CHARS)}` : text;
}

/** The iteration's report once ralph has judged its claims: rejected stories no longer count. */
