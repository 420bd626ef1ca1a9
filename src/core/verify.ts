import type { TaskListDocument } from '../plan/read.js';
import { parseTaskList } from '../plan/read.js';
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
import { countsKey, fewerTests, integrityStart, moveIntegrityBase } from './integrity-base.js';
import {
  interrupted,
  type LoopContext,
  type Stop,
  type VerificationSettings,
} from './loop-types.js';
import type { TestCounts } from './test-counts.js';
import { findTestTampering, readTestDiff, type StartPoint } from './test-integrity.js';
import { swappedTests, testFingerprint } from './swapped-tests.js';
import {
  describeFailure,
  failed,
  headCommit,
  rejectEvent,
  runQualityChecks,
  runShell,
  summary,
  toEvidence,
  type Check,
} from './verify-checks.js';
import { readFileNoFollow } from '../util/no-follow.js';

/**
 * Verified completion (issue 12): the agent's `passes: true` is a claim. ralph runs the story's
 * own `verify` commands, then every quality check, and scans the iteration's test changes; only
 * when all of that passes does the story stay passing. A failed claim goes back to false, with
 * a `story_rejected` event (progress.txt shows the failure to the next iteration) and counts as
 * no progress. Every check lands in evidence.jsonl.
 */

export interface ClaimsVerdict {
  accepted: string[];
  rejected: { id: string; reason: string; rejections: number }[];
  /** Rejected stories ralph parked (`blocked`) because they were rejected too often. */
  parked: string[];
  /** The task list after rejected stories were set back to false. */
  document: TaskListDocument;
}

/**
 * Before the agent runs: where the changes the next claim is judged on start, for test
 * integrity — the loop's integrity base (integrity-base.ts), read now if it has none.
 */
export async function iterationStart(
  ctx: LoopContext,
  before: TaskListDocument,
): Promise<StartPoint | undefined> {
  return integrityStart(ctx, everyVerify(before));
}

/** Every story's `verify`: the executables any later claim's checks could start. */
function everyVerify(document: TaskListDocument): string[] {
  return document.taskList.stories.flatMap((story) => story.verify ?? []);
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
  const history = await readEvidence(ctx.options.loopDir, ctx.options.stateDir);
  const commit = await headCommit(ctx);
  const storyCommands = input.claimed.flatMap(
    (id) => input.before.taskList.stories.find((each) => each.id === id)?.verify ?? [],
  );
  const integrity = await integrityProblems(ctx, settings, input.start, storyCommands);
  const fingerprint = await testFingerprint(ctx, settings);
  let quality: Check[] | undefined;
  const accepted: string[] = [];
  const rejected: ClaimsVerdict['rejected'] = [];
  const evidence: EvidenceEntry[] = [];
  // Emitted once the task list and evidence.jsonl say the same, so a reader never sees a story
  // rejected whose passes is still true.
  const events: LoopEvent[] = [];
  const counts: Record<string, TestCounts> = {};
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
    const swapped = await swappedTests(ctx, settings, fingerprint);
    if (swapped !== undefined) checks.push(swapped);
    if (!checks.some(failed) && story.allowTestChanges !== true && settings.testIntegrity) {
      const fewer = countsCheck(ctx, checks);
      if (fewer !== undefined) checks.push(fewer);
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
      Object.assign(counts, countsOf(checks));
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
  await appendEvidence(
    ctx.options.loopDir,
    [
      ...evidence,
      ...parked.map((each) => ({
        ...parkedAt,
        storyId: each.id,
        kind: 'parked' as const,
        name: parkReason(each),
        verdict: 'unchecked' as const,
      })),
    ],
    ctx.options.stateDir,
  );
  // Every check held: this tree is the new base, its test counts the new floor.
  if (accepted.length > 0) await moveIntegrityBase(ctx, counts, everyVerify(input.before));
  if (rejected.length === 0) {
    await keepTaskList(ctx, input.after);
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
  await appendEvidence(
    ctx.options.loopDir,
    toEvidence(ctx, '(final)', iteration, commit, checks),
    ctx.options.stateDir,
  );
  const failure = checks.find(failed);
  if (failure === undefined) {
    await moveIntegrityBase(ctx, countsOf(checks), []);
    return undefined;
  }
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
    ...(await findCheckSetupChanges(runner, ctx.options.cwd, start, commands, diff.baseHadTests)),
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

/** The test counts of the checks that reported them, by check. */
function countsOf(checks: readonly Check[]): Record<string, TestCounts> {
  const counts: Record<string, TestCounts> = {};
  for (const check of checks) {
    if (check.run.tests !== undefined)
      counts[countsKey(check.kind, check.command)] = check.run.tests;
  }
  return counts;
}

/**
 * The wall that does not read test code: a check whose runner reports fewer passing tests, or
 * more skipped or todo ones, than at the last verified state fails the claim.
 */
function countsCheck(ctx: LoopContext, checks: readonly Check[]): Check | undefined {
  const problems = checks.flatMap((check) => {
    const why = fewerTests(ctx, countsKey(check.kind, check.command), check.run.tests);
    return why === undefined ? [] : [`\`${check.command ?? ''}\` reports ${why}`];
  });
  if (problems.length === 0) return undefined;
  return {
    kind: 'integrity',
    name: 'test counts',
    run: { exitCode: 1, timedOut: false, durationMs: 0, output: problems.join('\n') },
  };
}

/**
 * The checks run the project's code, which the agent wrote: it could rewrite the task list while
 * they run (give its story `allowTestChanges`, a weaker `verify`) for the next iteration to read.
 * The task list goes back to what ralph judged, with a warning.
 */
async function keepTaskList(ctx: LoopContext, judged: TaskListDocument): Promise<void> {
  const now = await readFileNoFollow(judged.file).catch(() => undefined);
  if (now === judged.text) return;
  await writeFileAtomic(judged.file, judged.text);
  await ctx.emit({
    type: 'warning',
    at: ctx.at(),
    message: 'the task list changed while ralph ran the checks; ralph put back the one it judged',
  });
}
