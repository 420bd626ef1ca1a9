import type { Story } from '../plan/types.js';
import { readEvidence, rejectionsOf } from '../state/evidence-log.js';
import type { LoopContext } from './loop-types.js';

/**
 * The diagnostic pivot (issue 12, item 6): a story ralph has rejected again and again is not
 * helped by one more identical attempt. Its next iteration leads with what failed, asks for a
 * fresh diagnosis before any fix, and runs on the next stronger model.
 */

export interface Pivot {
  /** Put before the usual prompt. */
  lead: string;
  model: string | undefined;
  rejections: number;
}

/** haiku → sonnet → opus; a model ralph cannot place (or none: the agent's default) → opus. */
export function strongerModel(model: string | undefined): string {
  if (model !== undefined && /opus/i.test(model)) return model;
  if (model !== undefined && /haiku/i.test(model)) return 'sonnet';
  return 'opus';
}

export async function pivotFor(
  ctx: LoopContext,
  story: Story,
  model: string | undefined,
): Promise<Pivot | undefined> {
  const after = ctx.options.verification?.pivotAfterRejections ?? 0;
  if (after <= 0) return undefined;
  const { count, lastFailure } = rejectionsOf(
    await readEvidence(ctx.options.loopDir, ctx.options.stateDir),
    story.id,
  );
  if (count < after || lastFailure === undefined) return undefined;
  const what =
    lastFailure.kind === 'integrity'
      ? 'the test-integrity scan'
      : `\`${lastFailure.command ?? lastFailure.name ?? lastFailure.kind}\``;
  const lead = [
    `# ralph rejected ${story.id} ${count} times: start from a fresh diagnosis`,
    '',
    `Earlier iterations claimed ${story.id} was done, and ralph's own checks disagreed each time.`,
    `The last rejection (iteration ${lastFailure.iteration}): ${what} ${
      lastFailure.kind === 'integrity'
        ? 'found tests weakened'
        : `failed${lastFailure.exitCode === undefined ? '' : ` with exit ${lastFailure.exitCode}`}`
    }. Its output ended with:`,
    '',
    '```',
    lastFailure.outputTail.trimEnd(),
    '```',
    '',
    'Do not repeat the earlier approach. First reproduce this failure yourself, find its cause',
    '(read the failing check and the code it exercises; question your assumptions), and only',
    'then change the code. Do not weaken, skip or delete tests. Claim the story only when that',
    'exact command passes.',
    '',
    '---',
    '',
  ].join('\n');
  // A model the story names itself was the person's choice: it stays.
  const pinned = story.model !== undefined && story.model !== '';
  return { lead, model: pinned ? model : strongerModel(model), rejections: count };
}
