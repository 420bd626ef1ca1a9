/**
 * The defaults of the guard's configurable lists. Here rather than in the settings table
 * (guard-config-schema.ts, which states them through these) because src/guard/policy.ts
 * applies them itself: `ralph guard` runs before every tool call and decides without loading
 * zod or the config files unless they set `guard:`.
 */
/** `guard.network`: what curl, wget, ssh and friends get. */
export const NETWORK_POLICIES = ['allow', 'ask', 'deny'] as const;

/** `guard.timeBudgetMs`: the longest one decision may take before the call is denied. */
export const GUARD_TIME_BUDGET_MS = 2000;

export const GUARD_DEFAULTS = {
  network: 'allow',
  allowCommands: [],
  askCommands: [],
  denyCommands: [],
  allowPatterns: [],
  askPatterns: [],
  denyPatterns: [
    'git push --force*',
    'git push -f*',
    'git push * --force*',
    'git push * -f*',
    'npm publish*',
    'chmod 777 *',
    'chmod -R 777 *',
  ],
  writablePaths: ['/tmp'],
  readablePaths: [],
  allowTools: [],
  protectedPaths: [],
  sensitiveFiles: [],
  allowSensitiveFiles: [],
} as const;
