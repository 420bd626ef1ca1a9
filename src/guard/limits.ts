/**
 * Bounds on the work one decision may do: the guard answers every call quickly or refuses it,
 * so no command — a brace expansion of millions of words, globs over a 100 000-file folder — can
 * keep it busy (the worker's time budget, judge-worker.ts, is the backstop for everything else).
 */

/** More words than this from one brace expansion: refused rather than judged one by one. */
export const MAX_EXPANDED_WORDS = 4096;

/** Directory entries matched against glob arguments in one decision. */
export const MAX_GLOB_NAMES = 1_000_000;

/** A command whose judgement would exceed a bound: refused with the bound in the reason. */
export class TooLargeToJudge extends Error {
  override readonly name = 'TooLargeToJudge';
  readonly code = 'TOO_LARGE_TO_JUDGE';
}
