import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RalphError } from '../util/errors.js';
import { configFromEnv, loadConfig } from './config.js';
import { parseConfigYaml } from './config-yaml.js';

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fake home and a repo root, both empty. */
async function sandbox(): Promise<{ homeDir: string; repoRoot: string }> {
  const base = await mkdtemp(join(tmpdir(), 'ralph-config-'));
  created.push(base);
  const homeDir = join(base, 'home');
  const repoRoot = join(base, 'repo');
  await mkdir(homeDir);
  await mkdir(repoRoot);
  return { homeDir, repoRoot };
}

async function put(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}

const userFile = (homeDir: string) => join(homeDir, '.config', 'ralph', 'config.yaml');
const projectFile = (repoRoot: string) => join(repoRoot, '.ralph', 'config.yaml');

function failure(run: () => unknown): RalphError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RalphError);
    return error as RalphError;
  }
  throw new Error('expected a RalphError');
}

async function asyncFailure(promise: Promise<unknown>): Promise<RalphError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RalphError);
  return error as RalphError;
}

describe('loadConfig', () => {
  it('uses the defaults when nothing is configured, and writes nothing', async () => {
    const { homeDir, repoRoot } = await sandbox();
    const loaded = await loadConfig({ homeDir, repoRoot, env: {} });
    expect(loaded.config).toMatchObject({ maxIterations: 20, profile: 'balanced' });
    expect(loaded.config.model).toBeUndefined();
    expect(new Set(Object.values(loaded.sources))).toEqual(new Set(['default']));
    expect(loaded.files).toEqual({});
    expect(loaded.warnings).toEqual([]);
    expect(await readdir(homeDir)).toEqual([]);
    expect(await readdir(repoRoot)).toEqual([]);
  });

  describe('precedence: flag > env > project > user > default', () => {
    const levels = ['flag', 'env', 'project', 'user', 'default'] as const;
    const value = { flag: 5, env: 4, project: 3, user: 2, default: 20 };

    it.each(levels.map((winner, index) => ({ winner, set: levels.slice(index) })))(
      '$winner wins over the levels below it',
      async ({ winner, set }) => {
        const { homeDir, repoRoot } = await sandbox();
        if (set.includes('user')) await put(userFile(homeDir), 'maxIterations: 2\n');
        if (set.includes('project')) await put(projectFile(repoRoot), 'maxIterations: 3\n');
        const loaded = await loadConfig({
          homeDir,
          repoRoot,
          env: set.includes('env') ? { RALPH_MAX_ITERATIONS: '4' } : {},
          flags: set.includes('flag') ? { maxIterations: 5 } : {},
        });
        expect(loaded.config.maxIterations).toBe(value[winner]);
        expect(loaded.sources.maxIterations).toBe(winner);
      },
    );
  });

  it('merges objects key by key across levels and replaces arrays whole', async () => {
    const { homeDir, repoRoot } = await sandbox();
    await put(
      userFile(homeDir),
      'agents:\n  claude:\n    command: /opt/claude\nprotectedBranches: [main, trunk]\n',
    );
    await put(
      projectFile(repoRoot),
      'agents:\n  claude:\n    dangerouslySkipPermissions: true\nprotectedBranches: [release]\n',
    );
    const loaded = await loadConfig({ homeDir, repoRoot, env: {}, flags: { model: 'opus' } });
    expect(loaded.config.agents.claude).toEqual({
      command: '/opt/claude',
      dangerouslySkipPermissions: true,
    });
    expect(loaded.config.protectedBranches).toEqual(['release']);
    expect(loaded.sources).toMatchObject({
      'agents.claude.command': 'user',
      'agents.claude.dangerouslySkipPermissions': 'project',
      protectedBranches: 'project',
      model: 'flag',
      profile: 'default',
    });
    expect(loaded.files).toEqual({ user: userFile(homeDir), project: projectFile(repoRoot) });
  });

  it('reads the user config from XDG_CONFIG_HOME when it is set', async () => {
    const { homeDir } = await sandbox();
    const xdg = join(homeDir, 'xdg');
    await put(join(xdg, 'ralph', 'config.yaml'), 'profile: quality\n');
    await put(userFile(homeDir), 'profile: budget\n');
    const loaded = await loadConfig({ homeDir, env: { XDG_CONFIG_HOME: xdg } });
    expect(loaded.config.profile).toBe('quality');
    expect(loaded.files.user).toBe(join(xdg, 'ralph', 'config.yaml'));
  });

  it('ignores flags left undefined (options the user did not pass)', async () => {
    const { homeDir } = await sandbox();
    await put(userFile(homeDir), 'maxIterations: 7\n');
    const loaded = await loadConfig({ homeDir, env: {}, flags: { maxIterations: undefined } });
    expect(loaded.config.maxIterations).toBe(7);
    expect(loaded.sources.maxIterations).toBe('user');
  });

  it('names the option of an invalid flag', async () => {
    const { homeDir } = await sandbox();
    const error = await asyncFailure(loadConfig({ homeDir, env: {}, flags: { maxIterations: 0 } }));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toBe('option --max-iterations: invalid value 0 for maxIterations');
    expect(error.hint).toBe('maxIterations must be a whole number ≥ 1.');
  });

  it('reports a config path that cannot be read', async () => {
    const { homeDir } = await sandbox();
    await mkdir(userFile(homeDir), { recursive: true });
    const error = await asyncFailure(loadConfig({ homeDir, env: {} }));
    expect(error.code).toBe('IO');
    expect(error.location?.file).toBe(userFile(homeDir));
  });
});

describe('configFromEnv', () => {
  it('coerces numbers, booleans, lists and strings', () => {
    const { settings } = configFromEnv({
      RALPH_MAX_ITERATIONS: ' 7 ',
      RALPH_TIMEOUT_MINUTES: '2.5',
      RALPH_PAUSE_SECONDS: '0',
      RALPH_PROFILE: 'budget',
      RALPH_MODEL: 'claude-opus-4',
      RALPH_PROTECTED_BRANCHES: 'main, release/1.x,,',
      RALPH_AGENTS_CLAUDE_DANGEROUSLY_SKIP_PERMISSIONS: 'TRUE',
      RALPH_AGENTS_CLAUDE_COMMAND: '/usr/local/bin/claude',
    });
    expect(settings).toEqual({
      maxIterations: 7,
      timeoutMinutes: 2.5,
      pauseSeconds: 0,
      profile: 'budget',
      model: 'claude-opus-4',
      protectedBranches: ['main', 'release/1.x'],
      agents: { claude: { command: '/usr/local/bin/claude', dangerouslySkipPermissions: true } },
    });
    for (const [raw, expected] of [
      ['1', true],
      ['0', false],
      ['false', false],
    ] as const) {
      const env = { RALPH_AGENTS_CLAUDE_DANGEROUSLY_SKIP_PERMISSIONS: raw };
      expect(configFromEnv(env).settings.agents?.claude?.dangerouslySkipPermissions).toBe(expected);
    }
  });

  it('accepts RALPH_CLAUDE_BIN, with the full name winning when both differ', () => {
    expect(configFromEnv({ RALPH_CLAUDE_BIN: '/a/claude' }).settings).toEqual({
      agents: { claude: { command: '/a/claude' } },
    });
    const both = configFromEnv({ RALPH_CLAUDE_BIN: '/a', RALPH_AGENTS_CLAUDE_COMMAND: '/b' });
    expect(both.settings.agents?.claude?.command).toBe('/b');
    expect(both.warnings).toEqual(['RALPH_AGENTS_CLAUDE_COMMAND overrides RALPH_CLAUDE_BIN']);
  });

  it('treats empty variables as unset and ignores unknown RALPH_* variables', () => {
    expect(
      configFromEnv({ RALPH_MODEL: '', RALPH_MAX_ITERATIONS: ' ', RALPH_ITERATION: '3' }),
    ).toEqual({ settings: {}, warnings: [] });
  });

  it('names the variable of a value that cannot be coerced', () => {
    const error = failure(() => configFromEnv({ RALPH_MAX_ITERATIONS: 'ten' }));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toBe(
      'environment variable RALPH_MAX_ITERATIONS: invalid value "ten" for maxIterations',
    );
    expect(error.hint).toBe('maxIterations must be a whole number ≥ 1.');
    const bool = failure(() =>
      configFromEnv({ RALPH_AGENTS_CLAUDE_DANGEROUSLY_SKIP_PERMISSIONS: 'yes' }),
    );
    expect(bool.message).toContain('RALPH_AGENTS_CLAUDE_DANGEROUSLY_SKIP_PERMISSIONS');
  });

  it('names the variable of a value out of range, and every other bad one', () => {
    const error = failure(() => configFromEnv({ RALPH_MAX_ITERATIONS: '0', RALPH_PROFILE: 'x' }));
    expect(error.message).toBe(
      'environment variable RALPH_MAX_ITERATIONS: invalid value 0 for maxIterations\n' +
        '  environment variable RALPH_PROFILE: invalid value "x" for profile',
    );
  });
});

describe('quality checks and verification settings (issue 12)', () => {
  const file = '/repo/.ralph/config.yaml';

  it('reads quality_checks, the Ralph Hybrid spelling, as qualityChecks', () => {
    const yaml = 'quality_checks:\n  backend: pytest tests/\n  frontend: pnpm check\n';
    expect(parseConfigYaml(yaml, file).settings).toEqual({
      qualityChecks: { backend: 'pytest tests/', frontend: 'pnpm check' },
    });
  });

  it('refuses a file that sets both spellings, and a check that is not a command', () => {
    expect(() =>
      parseConfigYaml('quality_checks:\n  a: x\nqualityChecks:\n  b: y\n', file),
    ).toThrow(/both quality_checks and qualityChecks are set/);
    expect(() => parseConfigYaml('qualityChecks:\n  test: 3\n', file)).toThrow(
      expect.objectContaining({
        hint: 'qualityChecks must be a mapping of names to shell commands (name: command).',
      }),
    );
  });

  it('takes RALPH_QUALITY_CHECKS as a JSON object, and has verify defaults', () => {
    const { settings } = configFromEnv({ RALPH_QUALITY_CHECKS: '{"test":"npm test"}' });
    expect(settings).toEqual({ qualityChecks: { test: 'npm test' } });
    expect(() => configFromEnv({ RALPH_QUALITY_CHECKS: 'npm test' })).toThrow(
      /RALPH_QUALITY_CHECKS/,
    );
  });
});
