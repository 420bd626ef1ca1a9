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
      completionPatterns: [],
      loop: { backstopIterations: 500, orphanedAfterMinutes: 60 },
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
      ['completionPatterns', 'list', 'RALPH_COMPLETION_PATTERNS'],
      ['loop.backstopIterations', 'number', 'RALPH_LOOP_BACKSTOP_ITERATIONS'],
      ['loop.orphanedAfterMinutes', 'number', 'RALPH_LOOP_ORPHANED_AFTER_MINUTES'],
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
