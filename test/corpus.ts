import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describeNeeding, itNeeding, type Requirement } from './requirements.js';

/**
 * The real corpus (plans and transcripts gathered from other projects) lives beside the checkout
 * in ../shared/corpus and is not part of the repository. Every test that reads it goes through
 * here: without it those tests skip (test/corpus-notice.ts prints one notice per run), unless
 * RALPH_CORPUS_REQUIRED=1 (set by .ci/run), where a missing corpus fails them.
 */

export const CORPUS_DIR = resolve(
  process.env.RALPH_CORPUS_DIR ?? join(import.meta.dirname, '../../shared/corpus'),
);

export const corpusAvailable = (): boolean => existsSync(join(CORPUS_DIR, 'plans'));

export const corpusRequired = (): boolean => process.env.RALPH_CORPUS_REQUIRED === '1';

/** A path inside the corpus: `corpusPath('plans', 'prd.json')`. */
export const corpusPath = (...parts: string[]): string => join(CORPUS_DIR, ...parts);

/** The names in a corpus folder ending in `suffix`, sorted; none when the corpus is missing. */
export function corpusFiles(folder: string, suffix: string): string[] {
  if (!corpusAvailable()) return [];
  return readdirSync(corpusPath(folder))
    .filter((name) => name.endsWith(suffix))
    .sort();
}

export function missingCorpusMessage(): string {
  return `the corpus is missing at ${CORPUS_DIR} (set RALPH_CORPUS_DIR, or place shared/ beside the checkout)`;
}

function corpus(): Requirement {
  return {
    what: `the corpus at ${CORPUS_DIR}`,
    present: corpusAvailable(),
    required: corpusRequired(),
    hint: 'RALPH_CORPUS_REQUIRED=1 makes it a failure; set RALPH_CORPUS_DIR or place shared/ beside the checkout',
  };
}

/** `describe` for tests that read the corpus (skipped, or failed when required, without it). */
export function describeCorpus(name: string, body: () => void): void {
  describeNeeding(corpus(), name, body);
}

/** `it` for one test that reads the corpus, inside a describe that otherwise does not. */
export function itCorpus(name: string, body: () => Promise<void> | void, timeout?: number): void {
  itNeeding(corpus(), name, body, timeout);
}
