import { describe, expect, it } from 'vitest';
import {
  choicesOf,
  configLayerOf,
  defaultHelpOf,
  defaultOf,
  settingAt,
  withDefault,
} from './config-facts.js';
import { configSchema } from './config-schema.js';

describe('config facts', () => {
  it('give the defaults the resolved config applies', () => {
    const defaults = configSchema.parse({});
    expect(defaultOf('maxIterations')).toBe(defaults.maxIterations);
    expect(defaultOf('usageLimit.action')).toBe(defaults.usageLimit.action);
    expect(defaultOf('protectedBranches')).toEqual(defaults.protectedBranches);
    expect(settingAt('budget.maxCostUsd').default).toBeUndefined();
    // Applied outside the config schema (the CLI starts `claude` from PATH).
    expect(defaultOf('agents.claude.command')).toBe('claude');
    expect(defaults.agents.claude.command).toBeUndefined();
  });

  it('give the choices in order, as the schema accepts them', () => {
    expect(choicesOf('profile')).toEqual(['quality', 'balanced', 'budget']);
    expect(choicesOf('usageLimit.action')).toEqual(['wait', 'exit', 'ask']);
    expect(choicesOf('agent')).toEqual(['claude']);
    expect(choicesOf('guard.network')).toEqual(['allow', 'ask', 'deny']);
    for (const choice of choicesOf('profile')) {
      expect(configSchema.parse({ profile: choice }).profile).toBe(choice);
    }
  });

  it('say the default as help texts do', () => {
    expect(withDefault('most iterations in this run', 'maxIterations')).toBe(
      'most iterations in this run (default 20)',
    );
    expect(defaultHelpOf('idleTimeoutMinutes')).toBe('default 5; 0: off');
    expect(defaultHelpOf('rateLimit.callsPerHour')).toBe('default 100; 0: off');
    expect(defaultHelpOf('usageLimit.action')).toBe('default wait');
    expect(defaultHelpOf('budget.maxCostUsd')).toBe('default: no limit');
  });

  it('build a config layer from values by path, leaving out what was not given', () => {
    const layer = configLayerOf({
      maxIterations: 5,
      timeoutMinutes: undefined,
      'budget.maxCostUsd': 2,
      'usageLimit.action': 'exit',
      'agents.claude.dangerouslySkipPermissions': true,
    });
    expect(layer).toEqual({
      maxIterations: 5,
      budget: { maxCostUsd: 2 },
      usageLimit: { action: 'exit' },
      agents: { claude: { dangerouslySkipPermissions: true } },
    });
    expect(configLayerOf({})).toEqual({});
  });

  it('refuse a path that is not a setting', () => {
    expect(() => settingAt('agents' as 'agent')).toThrow(/unknown setting agents/);
  });
});
