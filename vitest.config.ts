import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Process-level tests spawn the built binary and git; give them room on a busy 2-core machine.
    testTimeout: 30_000,
    pool: 'forks',
    // vitest runs one file at a time on 2 cores (CPUs - 1); most of an e2e test's time is spent
    // waiting for the processes it started, so two files at once finish sooner (measured on 11
    // e2e files: 53 s → 36 s).
    maxWorkers: Math.max(2, availableParallelism()),
    // Says once per run when the corpus beside the checkout is missing (see test/corpus.ts).
    globalSetup: ['test/corpus-notice.ts'],
  },
});
