import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Process-level tests spawn the built binary and git; give them room on a busy 2-core machine.
    testTimeout: 30_000,
    pool: 'forks',
    // Says once per run when the corpus beside the checkout is missing (see test/corpus.ts).
    globalSetup: ['test/corpus-notice.ts'],
  },
});
