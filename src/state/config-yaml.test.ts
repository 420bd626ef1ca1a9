import { describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import { parseConfigYaml } from './config-yaml.js';

function failure(run: () => unknown): RalphError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RalphError);
    return error as RalphError;
  }
  throw new Error('expected a RalphError');
}

describe('parseConfigYaml', () => {
  const file = '/repo/.ralph/config.yaml';

  it('treats an empty or comment-only file as no settings', () => {
    const none = { settings: {}, warnings: [], mapped: [] };
    expect(parseConfigYaml('', file)).toEqual(none);
    expect(parseConfigYaml('# nothing yet\n', file)).toEqual(none);
  });

  it('treats a key with no value as not set', () => {
    const text = 'model:\nagents:\n  # claude:\n  #   command: /opt/claude\nmaxIterations: 9\n';
    expect(parseConfigYaml(text, file).settings).toEqual({ maxIterations: 9 });
  });

  it('reports an alias bomb as a config error at its first alias, without expanding it', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level++) {
      const name = String.fromCharCode(97 + level);
      const previous = String.fromCharCode(96 + level);
      levels.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    const error = failure(() => parseConfigYaml(`maxIterations: 3\n${levels.join('\n')}\n`, file));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.location).toEqual({ file, line: 3, column: 8 });
    expect(error.message).toMatch(/^\/repo\/\.ralph\/config\.yaml:3:8: too many YAML aliases/);
  });

  it('still reads a few aliases', () => {
    const text = 'qualityChecks: &checks\n  - npm test\nverify:\n  testFiles: *checks\n';
    expect(() => parseConfigYaml(text, file)).not.toThrow(/alias/);
  });

  it('reads the settings', () => {
    const text = 'maxIterations: 30\nagents:\n  claude:\n    dangerouslySkipPermissions: true\n';
    expect(parseConfigYaml(text, file).settings).toEqual({
      maxIterations: 30,
      agents: { claude: { dangerouslySkipPermissions: true } },
    });
  });

  it('reports bad YAML with its line and column', () => {
    const error = failure(() => parseConfigYaml('maxIterations: 5\nprofile: [quality\n', file));
    expect(error.code).toBe('INVALID_YAML');
    expect(error.location).toEqual({ file, line: 3, column: 1 });
    expect(error.message).toMatch(/^\/repo\/\.ralph\/config\.yaml:3:1: /);

    const duplicate = failure(() => parseConfigYaml('profile: budget\nprofile: quality\n', file));
    expect(duplicate.location).toEqual({ file, line: 2, column: 1 });
    expect(duplicate.hint).toContain('Line 2 reads: profile: quality');
  });

  it('reports a wrong type with the field path, its line and a hint', () => {
    const error = failure(() => parseConfigYaml('profile: quality\nmaxIterations: ten\n', file));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toBe(`${file}:2:16: invalid value "ten" for maxIterations`);
    expect(error.location).toEqual({ file, line: 2, column: 16, field: 'maxIterations' });
    expect(error.hint).toBe('maxIterations must be a whole number ≥ 1.');
  });

  it('locates nested fields and list items', () => {
    const nested = 'agents:\n  claude:\n    dangerouslySkipPermissions: "yes"\n';
    expect(failure(() => parseConfigYaml(nested, file)).location).toEqual({
      file,
      line: 3,
      column: 33,
      field: 'agents.claude.dangerouslySkipPermissions',
    });
    const list = 'protectedBranches:\n  - main\n  - 42\n';
    expect(failure(() => parseConfigYaml(list, file)).location).toMatchObject({
      line: 3,
      field: 'protectedBranches',
    });
  });

  it('rejects an unknown key, pointing at it and suggesting the closest one', () => {
    const error = failure(() => parseConfigYaml('profile: budget\nmaxIteration: 5\n', file));
    expect(error.message).toBe(`${file}:2:1: unknown setting "maxIteration"`);
    expect(error.hint).toBe('Did you mean "maxIterations"?');
    expect(error.location).toEqual({ file, line: 2, column: 1, field: 'maxIteration' });

    const nested = failure(() => parseConfigYaml('agents:\n  claude:\n    comand: x\n', file));
    expect(nested.message).toBe(`${file}:3:5: unknown setting "agents.claude.comand"`);
    expect(nested.hint).toBe('Did you mean "command"?');

    const snake = failure(() => parseConfigYaml('max_iterations: 5\n', file));
    expect(snake.hint).toBe('Did you mean "maxIterations"?');
  });

  it('lists every problem, the first in the file first', () => {
    const text = 'maxIterations: 0\nfoo: 1\nprofile: fast\n';
    const error = failure(() => parseConfigYaml(text, file));
    expect(error.message.split('\n')).toEqual([
      `${file}:1:16: invalid value 0 for maxIterations`,
      `  ${file}:2:1: unknown setting "foo"`,
      `  ${file}:3:10: invalid value "fast" for profile`,
    ]);
    expect(error.location?.line).toBe(1);
  });

  it('rejects a file that is not a mapping', () => {
    const error = failure(() => parseConfigYaml('- maxIterations\n', file));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain('expected a mapping');
  });
});
