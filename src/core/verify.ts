import type { TaskListDocument } from '../plan/read.js';
import { parseTaskList } from '../plan/read.js';
import type { Story } from '../plan/types.js';
import { applyStoryEdits, updateStories } from '../plan/write.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import {
  appendEvidence,
  readEvidence,
  rejectionsOf,
  type EvidenceEntry,
} from '../state/evidence-log.js';
import { findCheckSetupChanges } from './check-setup.js';
import type { IterationOutcome, LoopEvent } from './events.js';
import type { IterationReport } from './iteration.js';
import {
  interrupted,
  type CheckRun,
  type LoopContext,
  type Stop,
  type VerificationSettings,
} from './loop-types.js';
import {
  findTestTampering,
  readStartPoint,
  readTestDiff,
  type StartPoint,
} from './test-integrity.js';

/**
 * Verified completion (issue 12): the agent's `passes: true` is a claim. ralph runs the story's
 * own `verify` commands, then every quality check, and scans the iteration's test changes; only
 * when all of that passes does the story stay passing. A failed claim goes back to false, with
 * a `story_rejected` event (progress.txt shows the failure to the next iteration) and counts as
 * no progress. Every check lands in evidence.jsonl.
 */

type CheckKind = 'verify' | 'quality' | 'integrity';

interface Check {
  kind: CheckKind;
  name?: string | undefined;
  command?: string | undefined;
  run: CheckRun;
}

export interface ClaimsVerdict {
  accepted: string[];
  rejected: { id: string; reason: string; rejections: number }[];
  /** Rejected stories ralph parked (`blocked`) because they were rejected too often. */
  parked: string[];
  /** The task list after rejected stories were set back to false. */
  document: TaskListDocument;
}

/** Output kept per check: enough to see the failing assertion, small enough for progress.txt. */
const TAIL_CHARS = 2000;

/** HEAD now, for the evidence (undefined outside git). */
async function headCommit(ctx: LoopContext): Promise<string | undefined> {
  return (await ctx.deps.runCheck?.git(['rev-parse', '--verify', 'HEAD'], ctx.options.cwd))?.trim();
}

/**
 * Before the agent runs: where the changes the next claim is judged on start, for test
 * integrity — the run's integrity base (LoopContext.integrityBase), read now if it has none.
 */
export async function iterationStart(ctx: LoopContext): Promise<StartPoint | undefined> {
  const runner = ctx.deps.runCheck;
  if (runner === undefined || ctx.options.verification?.testIntegrity !== true) return undefined;
  ctx.integrityBase.start ??= await readStartPoint(runner, ctx.options.cwd);
  return ctx.integrityBase.start;
}

/**
 * Judges the stories the agent newly marked passing. `before` is the task list as it was when
 * the iteration started: its checks are the ones that count, whatever the agent did to the file.
 */
export async function verifyClaims(
  ctx: LoopContext,
  input: {
    iteration: number;
    before: TaskListDocument;
    after: TaskListDocument;
    claimed: readonly string[];
    start: StartPoint | undefined;
  },
): Promise<ClaimsVerdict> {
  const settings = ctx.options.verification;
  if (settings === undefined || input.claimed.length === 0) {
    return { accepted: [...input.claimed], rejected: [], parked: [], document: input.after };
  }
  const history = await readEvidence(ctx.options.loopDir);
  const commit = await headCommit(ctx);
  const storyCommands = input.claimed.flatMap(
    (id) => input.before.taskList.stories.find((each) => each.id === id)?.verify ?? [],
  );
  const integrity = await integrityProblems(ctx, settings, input.start, storyCommands);
  let quality: Check[] | undefined;
  const accepted: string[] = [];
  const rejected: ClaimsVerdict['rejected'] = [];
  const evidence: EvidenceEntry[] = [];
  // Emitted once the task list and evidence.jsonl say the same, so a reader never sees a story
  // rejected whose passes is still true.
  const events: LoopEvent[] = [];
  for (const id of input.claimed) {
    const story = input.before.taskList.stories.find((each) => each.id === id);
    if (story === undefined) continue;
    const checks: Check[] = [];
    if (integrity !== undefined && story.allowTestChanges !== true) checks.push(integrity);
    if (!checks.some(failed)) {
      for (const command of story.verify ?? []) {
        const check = await runShell(ctx, settings, 'verify', undefined, command);
        checks.push(check);
        if (failed(check)) break;
      }
    }
    if (!checks.some(failed)) {
      quality ??= await runQualityChecks(ctx, settings);
      checks.push(...quality);
    }
    if (ctx.deps.signal.aborted) {
      // Ctrl+C killed the checks: the claim is unverified (passes goes back to false for the
      // next run to check again), but it is no rejection of the agent's work.
      rejected.push({ id, reason: 'verification interrupted', rejections: 0 });
      continue;
    }
    evidence.push(...toEvidence(ctx, story.id, input.iteration, commit, checks));
    const failure = checks.find(failed);
    if (failure === undefined) {
      accepted.push(id);
      events.push({
        type: 'story_verified',
        at: ctx.at(),
        iteration: input.iteration,
        story: { id: story.id, title: story.title },
        checks: checks.map(summary),
        ...(commit === undefined ? {} : { commit }),
      });
    } else {
      const reason = describeFailure(failure);
      const rejections = rejectionsOf(history, id).count + 1;
      rejected.push({ id, reason, rejections });
      events.push(rejectEvent(ctx, input.iteration, story, failure, reason, rejections));
    }
  }
  const park = settings.parkAfterRejections;
  const parked = rejected.filter((each) => park > 0 && each.rejections >= park);
  const parkedAt = { at: ctx.at(), iteration: input.iteration, durationMs: 0, outputTail: '' };
  await appendEvidence(ctx.options.loopDir, [
    ...evidence,
    ...parked.map((each) => ({
      ...parkedAt,
      storyId: each.id,
      kind: 'parked' as const,
      name: parkReason(each),
      verdict: 'unchecked' as const,
    })),
  ]);
  if (rejected.length === 0) {
    for (const event of events) await ctx.emit(event);
    return { accepted, rejected, parked: [], document: input.after };
  }
  const unpassed = parseTaskList(
    updateStories(
      input.after,
      rejected.map(({ id }) => ({ id, passes: false })),
    ),
    input.after.file,
  );
  const text = applyStoryEdits(
    unpassed,
    parked.map((each) => ({ id: each.id, set: { blocked: parkReason(each) } })),
  );
  await writeFileAtomic(input.after.file, text);
  for (const event of events) await ctx.emit(event);
  for (const each of parked) {
    await ctx.emit({
      type: 'warning',
      at: ctx.at(),
      message: `${each.id} parked: ${parkReason(each)}; the loop moves on (remove its "blocked" to try it again)`,
    });
  }
  return {
    accepted,
    rejected,
    parked: parked.map((each) => each.id),
    document: parseTaskList(text, input.after.file),
  };
}

function parkReason(each: { reason: string; rejections: number }): string {
  return `parked by ralph after ${each.rejections} rejections; last: ${each.reason}`;
}

/**
 * Every quality check once more on the final tree, before the run may end COMPLETE; a failure
 * ends it in ERROR instead (no story is open to hand the failure to).
 */
export async function finalQualityCheck(
  ctx: LoopContext,
  iteration: number,
): Promise<Stop | undefined> {
  const settings = ctx.options.verification;
  if (settings === undefined || Object.keys(settings.qualityChecks).length === 0) return undefined;
  const checks = await runQualityChecks(ctx, settings);
  if (ctx.deps.signal.aborted) return interrupted('during the final quality check');
  const commit = await headCommit(ctx);
  await appendEvidence(ctx.options.loopDir, toEvidence(ctx, '(final)', iteration, commit, checks));
  const failure = checks.find(failed);
  if (failure === undefined) return undefined;
  const reason = describeFailure(failure);
  await ctx.emit({ type: 'warning', at: ctx.at(), message: `final quality check: ${reason}` });
  return {
    state: 'ERROR',
    reason: `every story passes, but the final quality check failed: ${reason}`,
    stopReason: 'verification_failed',
    exitCode: 1,
    hint: `Fix it (see \`ralph evidence\` for the output), then run again; or reopen the story it belongs to.`,
  };
}

async function runQualityChecks(
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

async function runShell(
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

async function integrityProblems(
  ctx: LoopContext,
  settings: VerificationSettings,
  start: StartPoint | undefined,
  storyCommands: readonly string[],
): Promise<Check | undefined> {
  const runner = ctx.deps.runCheck;
  if (!settings.testIntegrity || runner === undefined || start === undefined) return undefined;
  const began = ctx.deps.clock.now().getTime();
  const diff = await readTestDiff(runner, ctx.options.cwd, start, settings.testFiles);
  if (diff === undefined) return undefined;
  const commands = [...Object.values(settings.qualityChecks), ...storyCommands];
  const problems = [
    ...findTestTampering(diff),
    ...(await findCheckSetupChanges(runner, ctx.options.cwd, start, commands)),
  ];
  return {
    kind: 'integrity',
    name: 'test integrity',
    run: {
      exitCode: problems.length === 0 ? 0 : 1,
      timedOut: false,
      durationMs: ctx.deps.clock.now().getTime() - began,
      output: problems.join('\n'),
    },
  };
}

function failed(check: Check): boolean {
  return check.run.exitCode !== 0;
}

function describeFailure(check: Check): string {
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

function summary(check: Check): Extract<LoopEvent, { type: 'story_verified' }>['checks'][number] {
  return {
    kind: check.kind,
    ...(check.name === undefined ? {} : { name: check.name }),
    ...(check.command === undefined ? {} : { command: check.command }),
    ...(check.run.exitCode === undefined ? {} : { exitCode: check.run.exitCode }),
    ...(check.run.timedOut ? { timedOut: true } : {}),
    durationMs: check.run.durationMs,
  };
}

function rejectEvent(
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

function toEvidence(
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
  }));
}

function tail(text: string): string {
  return text.length > TAIL_CHARS ? `…${text.slice(-TAIL_CHARS)}` : text;
}

/** The iteration's report once ralph has judged its claims: rejected stories no longer count. */
export function judgedReport(report: IterationReport, verdict: ClaimsVerdict): IterationReport {
  if (verdict.rejected.length === 0) return report;
  const rejected = verdict.rejected.map(({ id, reason }) => `${id} rejected by ralph: ${reason}`);
  const stories = verdict.document.taskList.stories;
  const claimedDone = report.outcome === 'progress' || report.outcome === 'complete';
  const outcome: IterationOutcome = !claimedDone
    ? report.outcome
    : stories.length > 0 && stories.every((story) => story.passes)
      ? 'complete'
      : verdict.accepted.length > 0
        ? 'progress'
        : 'no_progress';
  const kept = verdict.accepted.length > 0 ? `${verdict.accepted.join(', ')} now passing; ` : '';
  return {
    ...report,
    outcome,
    detail: claimedDone
      ? `${kept}${rejected.join('; ')}`
      : `${report.detail}; ${rejected.join('; ')}`,
    after: verdict.document,
    newlyPassing: verdict.accepted,
  };
}
