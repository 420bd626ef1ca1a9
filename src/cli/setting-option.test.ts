import { Command, CommanderError, Option } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { choicesOf, withDefault } from '../state/config-facts.js';
import { parseSetting } from './setting-option.js';

function command() {
  return new Command('run')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined })
    .option(
      '-n, --max-iterations <n>',
      withDefault('most iterations', 'maxIterations'),
      parseSetting('maxIterations'),
    )
    .option('--idle-timeout <minutes>', 'idle', parseSetting('idleTimeoutMinutes'))
    .addOption(new Option('--profile <profile>', 'profile').choices(choicesOf('profile')));
}

describe('options that stand for settings', () => {
  it('take the values the setting takes', () => {
    const parsed = command().parse(['-n', '3', '--idle-timeout', '0', '--profile', 'budget'], {
      from: 'user',
    });
    expect(parsed.opts()).toEqual({ maxIterations: 3, idleTimeout: 0, profile: 'budget' });
  });

  it('refuse what the setting refuses, in its words', () => {
    for (const value of ['0', '2.5', '', 'x']) {
      expect(() => command().parse(['-n', value], { from: 'user' })).toThrow(
        `expected a whole number ≥ 1, got ${JSON.stringify(value)}`,
      );
    }
    expect(() => command().parse(['--idle-timeout', '-1'], { from: 'user' })).toThrow(
      'expected a number ≥ 0 (0: no idle timeout), got "-1"',
    );
    expect(() => command().parse(['--profile', 'fast'], { from: 'user' })).toThrow(CommanderError);
  });

  it('show the default in the help', () => {
    expect(command().helpInformation()).toContain('most iterations (default 20)');
  });
});
