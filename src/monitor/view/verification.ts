import type { StoryVerification } from '../../state/evidence-log.js';

/**
 * One story's verification in a few words, for the dashboard's story table: how ralph knows a
 * passing story is done, or why it refused it ("verified in iteration 3: npm test").
 */
export function verificationText(
  latest: StoryVerification | undefined,
  story: { passes: boolean; blocked?: string | undefined },
): string {
  if (story.blocked !== undefined) return story.blocked;
  if (latest === undefined) return story.passes ? 'not verified by ralph' : '';
  const checks = latest.checks
    .filter((check) => check.kind !== 'unchecked' && check.kind !== 'parked')
    .map((check) => check.command ?? check.name ?? check.kind);
  const where = `in iteration ${latest.iteration}`;
  switch (latest.verdict) {
    case 'pass':
      return `verified ${where}: ${checks.join(', ')}`;
    case 'fail': {
      const failed = latest.checks.find((check) => check.verdict === 'fail');
      return `rejected ${where}: ${failed?.command ?? failed?.name ?? 'a check'} failed`;
    }
    case 'unchecked':
      return `accepted ${where} without checks`;
  }
}
