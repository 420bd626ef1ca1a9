import { describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import { checkRunOptions, configLayerOf, type RunOptions } from './options.js';

const env = { PATH: '/usr/bin' };

function problem(options: unknown): RalphError {
  try {
    checkRunOptions(options as RunOptions);
  } catch (error) {
    if (error instanceof RalphError) return error;
    throw error;
  }
  throw new Error('expected the options to be refused');
}

describe('startRun options', () => {
  it('maps every flag to the config key it stands for', () => {
    const checked = checkRunOptions({
      env,
      maxIterations: 3,
      timeoutMinutes: 2,
      model: 'opus',
      profile: 'budget',
      pauseSeconds: 0,
      idleTimeoutMinutes: 0,
      maxCostUsd: 1.5,
      onUsageLimit: 'exit',
      callsPerHour: 10,
      dangerouslySkipPermissions: true,
      agent: { command: '/opt/claude' },
    });
    expect(configLayerOf(checked)).toEqual({
      maxIterations: 3,
      timeoutMinutes: 2,
      model: 'opus',
      profile: 'budget',
      pauseSeconds: 0,
      idleTimeoutMinutes: 0,
      budget: { maxCostUsd: 1.5 },
      usageLimit: { action: 'exit' },
      rateLimit: { callsPerHour: 10 },
      agents: { claude: { command: '/opt/claude', dangerouslySkipPermissions: true } },
    });
  });

  it('leaves out what was not given, so config files and RALPH_* still apply', () => {
    expect(configLayerOf(checkRunOptions({ env, skipPreflight: true }))).toEqual({});
    const adapter = {
      agent: {
        adapter: { probe: () => undefined, run: () => undefined, commandLine: () => undefined },
      },
    };
    expect(configLayerOf(checkRunOptions({ env, ...adapter } as never))).toEqual({});
  });

  it('names a misspelt option and lists the known ones', () => {
    const error = problem({ env, maxIteration: 3 });
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain('unknown option maxIteration');
    expect(error.hint).toContain('maxIterations');
  });

  it('checks values with the config setting’s own rules', () => {
    expect(problem({ env, maxIterations: 0 }).message).toContain('option maxIterations');
    expect(problem({ env, profile: 'fast' }).message).toContain('option profile');
    expect(problem({ env, onUsageLimit: 'later' }).message).toContain('option onUsageLimit');
  });

  it('requires the environment, and takes only strings in it', () => {
    expect(problem({}).message).toContain('option env');
    expect(problem({ env: { A: 1 } }).message).toContain('option env');
  });

  it('refuses a signal, reporter or adapter of the wrong shape', () => {
    expect(problem({ env, signal: {} }).message).toContain('option signal');
    expect(problem({ env, reporters: [{}] }).message).toContain('option reporters');
    expect(problem({ env, agent: { adapter: {} } }).message).toContain('option agent');
  });
});
