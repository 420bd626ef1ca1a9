import type { TaskListDocument } from '../plan/read.js';
import { parseTaskList } from '../plan/read.js';
import { updateStories } from '../plan/write.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import {
  latestVerifications,
  readEvidence,
  type StoryVerification,
} from '../state/evidence-log.js';
import type { LoopContext } from './loop-types.js';
import { iterationStart, verifyClaims } from './verify.js';
import { rejectEvent } from './verify-checks.js';

/**
 * A run of this loop killed (kill -9, a crash) after the agent set `passes: true` and before
 * ralph judged it (attack 32) leaves a claim in the task list that nobody verified. When a run
 * starts on a loop ralph has run before, every passing story without ralph's sealed word for it
 * (its latest verification in evidence.jsonl passed, or was accepted with no checks to run) is
 * a claim again: its `verify` commands and the quality checks run as for any claim, and a
 * failure sets it back to false with the failure in progress.txt (the test scan counts as a
 * check, as for any claim). One with no check at all to run (no commands, no git for the scan)
 * goes back to false too: ralph cannot know it was done. A task list ralph never ran on (no
 * iteration, no evidence) keeps what the person marked; `ralph status` says "not verified by
 * ralph" for those stories.
 */
export async function verifyUnjudgedPasses(
  ctx: LoopContext,
  document: TaskListDocument,
  iteration: number,
): Promise<TaskListDocument> {
  const settings = ctx.options.verification;
  if (settings === undefined) return document;
  const entries = await readEvidence(ctx.options.loopDir, ctx.options.stateDir);
  if (iteration === 0 && entries.length === 0) return document;
  const judged = new Map(latestVerifications(entries).map((each) => [each.storyId, each]));
  const unjudged = document.taskList.stories.filter(
    (story) =>
      story.passes && (story.blocked ?? '') === '' && !acceptedByRalph(judged.get(story.id)),
  );
  if (unjudged.length === 0) return document;
  await ctx.emit({
    type: 'warning',
    at: ctx.at(),
    message: `${unjudged.map((story) => story.id).join(', ')} marked passing without ralph's verification (an earlier run stopped before it judged them?): ralph verifies them now`,
  });
  // The test scan is one of ralph's checks: with it (a git repository), a story without commands
  // is judged as a fresh claim of it would be; with nothing at all to run, ralph cannot know.
  const start = await iterationStart(ctx, document);
  const noChecks = Object.keys(settings.qualityChecks).length === 0 && start === undefined;
  const unverifiable = unjudged.filter((story) => noChecks && (story.verify ?? []).length === 0);
  const claimed = unjudged.filter((story) => !unverifiable.includes(story)).map(({ id }) => id);
  let judgedDocument = document;
  if (claimed.length > 0) {
    const verdict = await verifyClaims(ctx, {
      iteration,
      before: document,
      after: document,
      claimed,
      start,
    });
    judgedDocument = verdict.document;
  }
  if (unverifiable.length === 0) return judgedDocument;
  const text = updateStories(
    judgedDocument,
    unverifiable.map(({ id }) => ({ id, passes: false })),
  );
  await writeFileAtomic(judgedDocument.file, text);
  const reason =
    'marked passing without ralph’s verification, and there is no verify command or quality check to verify it with';
  for (const story of unverifiable) {
    const check = {
      kind: 'verify' as const,
      name: 'no checks',
      run: { exitCode: 1, timedOut: false, durationMs: 0, output: `${reason}\n` },
    };
    await ctx.emit(rejectEvent(ctx, iteration, story, check, reason, 0));
  }
  return parseTaskList(text, judgedDocument.file);
}

/** ralph's latest word on the story accepted it: its checks passed, or it had none to run. */
function acceptedByRalph(latest: StoryVerification | undefined): boolean {
  if (latest === undefined || latest.verdict === 'fail') return false;
  return latest.checks.every((check) => check.kind !== 'parked');
}
