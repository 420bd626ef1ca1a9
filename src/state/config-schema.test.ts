import { DEFAULT_TEST_FILE_GLOBS } from './verify-config-schema.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  CONFIG_ENV_ALIASES,
  CONFIG_KEYS,
  CONFIG_REQUIREMENTS,
  configFileSchema,
  configSchema,
  explainIssue,
  suggestKey,
} from './config-schema.js';

describe('config schema', () => {
  it('resolves an empty config to the defaults', () => {
    expect(configSchema.parse({})).toEqual({
      maxIterations: 20,
      timeoutMinutes: 15,
      pauseSeconds: 2,
      profile: 'balanced',
      protectedBranches: ['main', 'master', 'develop'],
      agent: 'claude',
      agents: { claude: { dangerouslySkipPermissions: false } },
      completion: { promise: '<promise>COMPLETE</promise>' },
      completionPatterns: [],
      loop: { backstopIterations: 500, orphanedAfterMinutes: 60 },
      idleTimeoutMinutes: 5,
      resultGraceSeconds: 30,
      maxLineBytes: 1_048_576,
      circuitBreaker: {
        noProgressThreshold: 3,
        sameErrorThreshold: 5,
        permissionDenialThreshold: 2,
        cooldownMinutes: 30,
      },
      rateLimit: { callsPerHour: 100 },
      budget: {},
      retry: { maxRetries: 3, baseDelaySeconds: 2, maxDelaySeconds: 60 },
      sandbox: { enabled: true, maxProcesses: 4096, writable: [], readOnly: [], hidden: [] },
      usageLimit: {
        action: 'wait',
        marginSeconds: 60,
        firstBackoffMinutes: 5,
        maxBackoffMinutes: 60,
        askTimeoutSeconds: 30,
      },
      limits: { pace: 0 },
      qualityChecks: {},
      verify: {
        timeoutSeconds: 600,
        testIntegrity: true,
        testFiles: [...DEFAULT_TEST_FILE_GLOBS],
        pivotAfterRejections: 2,
        parkAfterRejections: 4,
      },
      guard: { enabled: true, timeBudgetMs: 2000 },
      notify: { desktop: true, bell: true },
      hooks: { enabled: true, timeoutSeconds: 60 },
      context: { tokenBudget: 16000 },
      memory: { tokenBudget: 2000, injection: 'auto' },
    });
  });

  it('never shares default arrays between results', () => {
    const first = configSchema.parse({});
    first.protectedBranches.push('mutated');
    expect(configSchema.parse({}).protectedBranches).toEqual(['main', 'master', 'develop']);
  });

  it('has every key optional in the file schema and rejects unknown keys', () => {
    expect(configFileSchema.parse({})).toEqual({});
    expect(configFileSchema.safeParse({ maxIteration: 3 }).success).toBe(false);
    expect(configFileSchema.safeParse({ agents: { claude: { cmd: 'x' } } }).success).toBe(false);
  });

  it('validates ranges and enums', () => {
    const bad = [
      { maxIterations: 0 },
      { maxIterations: 2.5 },
      { timeoutMinutes: 0 },
      { pauseSeconds: -1 },
      { profile: 'fast' },
      { agent: 'codex' },
      { protectedBranches: 'main' },
      { agents: { claude: { dangerouslySkipPermissions: 'yes' } } },
    ];
    for (const settings of bad) {
      expect(configFileSchema.safeParse(settings).success, JSON.stringify(settings)).toBe(false);
    }
    expect(configFileSchema.parse({ timeoutMinutes: 0.5, pauseSeconds: 0 })).toEqual({
      timeoutMinutes: 0.5,
      pauseSeconds: 0,
    });
  });

  it('generates a JSON Schema with a description on every property and nothing required', () => {
    const schema = z.toJSONSchema(configFileSchema) as JsonSchema;
    const visit = (node: JsonSchema, path: string): void => {
      expect(node.required, path).toBeUndefined();
      expect(node.additionalProperties, path).toBe(false);
      for (const [key, child] of Object.entries(node.properties ?? {})) {
        expect(child.description, `${path}${key}`).toEqual(expect.any(String) as unknown);
        if (child.properties !== undefined) visit(child, `${path}${key}.`);
      }
    };
    visit(schema, '');
  });
});

interface JsonSchema {
  description?: string;
  required?: string[];
  additionalProperties?: boolean;
  properties?: Record<string, JsonSchema>;
}

describe('CONFIG_KEYS', () => {
  it('lists every leaf with its environment variable', () => {
    expect(CONFIG_KEYS.map((key) => [key.path, key.kind, key.envVar])).toEqual([
      ['maxIterations', 'number', 'RALPH_MAX_ITERATIONS'],
      ['timeoutMinutes', 'number', 'RALPH_TIMEOUT_MINUTES'],
      ['pauseSeconds', 'number', 'RALPH_PAUSE_SECONDS'],
      ['model', 'string', 'RALPH_MODEL'],
      ['profile', 'string', 'RALPH_PROFILE'],
      ['protectedBranches', 'list', 'RALPH_PROTECTED_BRANCHES'],
      ['agent', 'string', 'RALPH_AGENT'],
      ['agents.claude.command', 'string', 'RALPH_AGENTS_CLAUDE_COMMAND'],
      [
        'agents.claude.dangerouslySkipPermissions',
        'boolean',
        'RALPH_AGENTS_CLAUDE_DANGEROUSLY_SKIP_PERMISSIONS',
      ],
      ['completion.promise', 'string', 'RALPH_COMPLETION_PROMISE'],
      ['completionPatterns', 'list', 'RALPH_COMPLETION_PATTERNS'],
      ['loop.backstopIterations', 'number', 'RALPH_LOOP_BACKSTOP_ITERATIONS'],
      ['loop.orphanedAfterMinutes', 'number', 'RALPH_LOOP_ORPHANED_AFTER_MINUTES'],
      ['idleTimeoutMinutes', 'number', 'RALPH_IDLE_TIMEOUT_MINUTES'],
      ['resultGraceSeconds', 'number', 'RALPH_RESULT_GRACE_SECONDS'],
      ['maxLineBytes', 'number', 'RALPH_MAX_LINE_BYTES'],
      [
        'circuitBreaker.noProgressThreshold',
        'number',
        'RALPH_CIRCUIT_BREAKER_NO_PROGRESS_THRESHOLD',
      ],
      ['circuitBreaker.sameErrorThreshold', 'number', 'RALPH_CIRCUIT_BREAKER_SAME_ERROR_THRESHOLD'],
      [
        'circuitBreaker.permissionDenialThreshold',
        'number',
        'RALPH_CIRCUIT_BREAKER_PERMISSION_DENIAL_THRESHOLD',
      ],
      ['circuitBreaker.cooldownMinutes', 'number', 'RALPH_CIRCUIT_BREAKER_COOLDOWN_MINUTES'],
      ['rateLimit.callsPerHour', 'number', 'RALPH_RATE_LIMIT_CALLS_PER_HOUR'],
      ['rateLimit.tokensPerHour', 'number', 'RALPH_RATE_LIMIT_TOKENS_PER_HOUR'],
      ['budget.maxCostUsd', 'number', 'RALPH_BUDGET_MAX_COST_USD'],
      ['budget.maxStoryCostUsd', 'number', 'RALPH_BUDGET_MAX_STORY_COST_USD'],
      ['retry.maxRetries', 'number', 'RALPH_RETRY_MAX_RETRIES'],
      ['retry.baseDelaySeconds', 'number', 'RALPH_RETRY_BASE_DELAY_SECONDS'],
      ['retry.maxDelaySeconds', 'number', 'RALPH_RETRY_MAX_DELAY_SECONDS'],
      ['usageLimit.action', 'string', 'RALPH_USAGE_LIMIT_ACTION'],
      ['usageLimit.marginSeconds', 'number', 'RALPH_USAGE_LIMIT_MARGIN_SECONDS'],
      ['usageLimit.firstBackoffMinutes', 'number', 'RALPH_USAGE_LIMIT_FIRST_BACKOFF_MINUTES'],
      ['usageLimit.maxBackoffMinutes', 'number', 'RALPH_USAGE_LIMIT_MAX_BACKOFF_MINUTES'],
      ['usageLimit.askTimeoutSeconds', 'number', 'RALPH_USAGE_LIMIT_ASK_TIMEOUT_SECONDS'],
      ['limits.pace', 'number', 'RALPH_LIMITS_PACE'],
      ['qualityChecks', 'map', 'RALPH_QUALITY_CHECKS'],
      ['verify.timeoutSeconds', 'number', 'RALPH_VERIFY_TIMEOUT_SECONDS'],
      ['verify.testIntegrity', 'boolean', 'RALPH_VERIFY_TEST_INTEGRITY'],
      ['verify.testFiles', 'list', 'RALPH_VERIFY_TEST_FILES'],
      ['verify.pivotAfterRejections', 'number', 'RALPH_VERIFY_PIVOT_AFTER_REJECTIONS'],
      ['verify.parkAfterRejections', 'number', 'RALPH_VERIFY_PARK_AFTER_REJECTIONS'],
      ['guard.enabled', 'boolean', 'RALPH_GUARD_ENABLED'],
      ['guard.network', 'string', 'RALPH_GUARD_NETWORK'],
      ['guard.allowCommands', 'list', 'RALPH_GUARD_ALLOW_COMMANDS'],
      ['guard.askCommands', 'list', 'RALPH_GUARD_ASK_COMMANDS'],
      ['guard.denyCommands', 'list', 'RALPH_GUARD_DENY_COMMANDS'],
      ['guard.allowPatterns', 'list', 'RALPH_GUARD_ALLOW_PATTERNS'],
      ['guard.askPatterns', 'list', 'RALPH_GUARD_ASK_PATTERNS'],
      ['guard.denyPatterns', 'list', 'RALPH_GUARD_DENY_PATTERNS'],
      ['guard.writablePaths', 'list', 'RALPH_GUARD_WRITABLE_PATHS'],
      ['guard.readablePaths', 'list', 'RALPH_GUARD_READABLE_PATHS'],
      ['guard.allowTools', 'list', 'RALPH_GUARD_ALLOW_TOOLS'],
      ['guard.timeBudgetMs', 'number', 'RALPH_GUARD_TIME_BUDGET_MS'],
      ['guard.protectedPaths', 'list', 'RALPH_GUARD_PROTECTED_PATHS'],
      ['guard.sensitiveFiles', 'list', 'RALPH_GUARD_SENSITIVE_FILES'],
      ['guard.allowSensitiveFiles', 'list', 'RALPH_GUARD_ALLOW_SENSITIVE_FILES'],
      ['sandbox.enabled', 'boolean', 'RALPH_SANDBOX_ENABLED'],
      ['sandbox.maxProcesses', 'number', 'RALPH_SANDBOX_MAX_PROCESSES'],
      ['sandbox.writable', 'list', 'RALPH_SANDBOX_WRITABLE'],
      ['sandbox.readOnly', 'list', 'RALPH_SANDBOX_READ_ONLY'],
      ['sandbox.hidden', 'list', 'RALPH_SANDBOX_HIDDEN'],
      ['notify.webhook', 'string', 'RALPH_NOTIFY_WEBHOOK'],
      ['notify.desktop', 'boolean', 'RALPH_NOTIFY_DESKTOP'],
      ['notify.bell', 'boolean', 'RALPH_NOTIFY_BELL'],
      ['hooks.enabled', 'boolean', 'RALPH_HOOKS_ENABLED'],
      ['hooks.timeoutSeconds', 'number', 'RALPH_HOOKS_TIMEOUT_SECONDS'],
      ['context.tokenBudget', 'number', 'RALPH_CONTEXT_TOKEN_BUDGET'],
      ['memory.tokenBudget', 'number', 'RALPH_MEMORY_TOKEN_BUDGET'],
      ['memory.injection', 'string', 'RALPH_MEMORY_INJECTION'],
    ]);
  });

  it('has a requirement text for every key and an alias only for known keys', () => {
    for (const key of CONFIG_KEYS) expect(CONFIG_REQUIREMENTS[key.path], key.path).toBeDefined();
    const paths = CONFIG_KEYS.map((key) => key.path);
    for (const target of Object.values(CONFIG_ENV_ALIASES)) expect(paths).toContain(target);
  });
});

describe('suggestKey', () => {
  const known = ['maxIterations', 'timeoutMinutes', 'pauseSeconds', 'profile', 'model'];

  it('matches other spellings of the same key', () => {
    expect(suggestKey('max_iterations', known)).toBe('maxIterations');
    expect(suggestKey('MaxIterations', known)).toBe('maxIterations');
    expect(suggestKey('timeout-minutes', known)).toBe('timeoutMinutes');
  });

  it('matches near typos and gives up on unrelated words', () => {
    expect(suggestKey('maxIteration', known)).toBe('maxIterations');
    expect(suggestKey('profil', known)).toBe('profile');
    expect(suggestKey('quality_checks', known)).toBeUndefined();
  });
});

describe('explainIssue', () => {
  it('states the requirement of the field in the hint', () => {
    const result = configFileSchema.safeParse({ protectedBranches: ['main', 3] });
    const issue = result.error?.issues[0];
    if (issue === undefined) throw new Error('expected an issue');
    expect(explainIssue(issue, 3)).toEqual({
      problem: 'invalid value 3 for protectedBranches',
      hint: 'protectedBranches must be a list of branch names.',
    });
  });

  it('lists the known keys at that level when nothing is close', () => {
    const result = configFileSchema.safeParse({ agents: { zzz: {} } });
    const issue = result.error?.issues[0];
    if (issue === undefined) throw new Error('expected an issue');
    expect(explainIssue(issue, undefined)).toEqual({
      problem: 'unknown setting "agents.zzz"',
      hint: 'Known settings under agents: claude.',
    });
  });
});
