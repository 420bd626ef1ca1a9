import {
  commandMap,
  flag,
  list,
  nonNegativeNumber,
  section,
  wholeNumber,
} from './config-setting.js';
import type { Resolved } from './config-setting.js';

/**
 * Verified completion (issue 12): the checks ralph runs itself before it believes a story is
 * done. `qualityChecks` is the Ralph Hybrid spec's project-level map (spelled `quality_checks`
 * there, which a config file may use too); `verify` holds how they run and how a story's tests
 * are protected from the agent.
 */

export const QUALITY_CHECKS_SETTING = commandMap({
  description:
    'Shell commands (name: command) ralph runs in the repository after every story the agent claims, and once more before COMPLETE; any failure rejects the claim. Also read as `quality_checks`.',
  default: {},
  defaultText: 'none',
  fileAliases: ['quality_checks'],
});

/** Where tests live in JS/TS, Python, Go and Rust projects. */
export const DEFAULT_TEST_FILE_GLOBS: readonly string[] = [
  '**/*.test.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/*.spec.{js,jsx,ts,tsx,mjs,cjs,mts,cts}',
  '**/__tests__/**',
  // node --test's own defaults, besides *.test.*: *-test.*, *_test.*, test-*.*, test.*
  '**/*{-,_}test.{js,ts,mjs,cjs,mts,cts}',
  '**/test-*.{js,ts,mjs,cjs,mts,cts}',
  '**/test.{js,ts,mjs,cjs,mts,cts}',
  '**/test/**/*.{js,ts,mjs,cjs}',
  '**/tests/**/*.{js,ts,mjs,cjs}',
  '**/test_*.py',
  '**/*_test.py',
  '**/tests/**/*.py',
  '**/conftest.py',
  '**/*_test.go',
  '**/tests/**/*.rs',
  '**/*_test.rs',
];

export const VERIFY_SETTINGS = section(
  'How ralph verifies a story the agent claims: its `verify` commands, then every quality check.',
  {
    timeoutSeconds: nonNegativeNumber({
      description:
        'How long one check command may run before its process group is killed (a failure).',
      zeroMeans: 'no limit',
      default: 600,
    }),
    testIntegrity: flag({
      description:
        'Reject a claimed story when the iteration deleted test files, added skip/only/todo markers or removed assertions (unless the story says allowTestChanges: true).',
      default: true,
    }),
    testFiles: list({
      description: 'Globs (relative to the repository) of the files test integrity protects.',
      requirement: 'a list of glob patterns',
      default: [...DEFAULT_TEST_FILE_GLOBS],
    }),
    pivotAfterRejections: wholeNumber(0, {
      description:
        "Rejections of a story after which its next iteration's prompt leads with the last failure and it runs on the next stronger model (unless the story names its own).",
      zeroMeans: 'never',
      default: 2,
    }),
    parkAfterRejections: wholeNumber(0, {
      description:
        'Rejections of a story after which ralph parks it (`blocked` with the reason) and moves on; a run that ends with parked stories exits 1.',
      zeroMeans: 'never',
      default: 4,
    }),
  },
);

export type VerifySettings = Resolved<typeof VERIFY_SETTINGS.section>;
