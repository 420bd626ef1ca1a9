import { corpusAvailable, corpusRequired, missingCorpusMessage } from './corpus.js';

/**
 * vitest globalSetup: runs once per run, in the main process, so a missing corpus is announced
 * once rather than by every test that skips for it.
 */
export default function setup(): void {
  if (corpusAvailable()) return;
  const consequence = corpusRequired()
    ? 'RALPH_CORPUS_REQUIRED=1: the tests that read it FAIL.'
    : 'The tests that read it are skipped.';
  process.stderr.write(`\nnotice: ${missingCorpusMessage()}. ${consequence}\n\n`);
}
