import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { parseConfigYaml } from './config-yaml.js';
import { configSchema } from './config-schema.js';

const file = '/repo/.ralph-hybrid/config.yaml';

// The two examples of the Ralph Hybrid spec's Configuration section, as written there.
const GLOBAL = `defaults:
  max_iterations: 20
  timeout_minutes: 15
  rate_limit_per_hour: 100

circuit_breaker:
  no_progress_threshold: 3
  same_error_threshold: 5

completion:
  promise: "<promise>COMPLETE</promise>"

claude:
  dangerously_skip_permissions: false
  allowed_tools: "Write,Bash(git *),Read"
`;

const PROJECT = `defaults:
  max_iterations: 30

quality_checks:
  backend: "docker compose exec backend pytest tests/"
  frontend: "docker compose exec frontend pnpm check"

# Protected branches - ralph will warn if running on these
protected_branches:
  - main
  - master
  - develop
`;

describe('Ralph Hybrid config keys', () => {
  it("reads the spec's global example as ralph's settings, naming each mapping", () => {
    const result = parseConfigYaml(GLOBAL, file);
    expect(result.settings).toEqual({
      maxIterations: 20,
      timeoutMinutes: 15,
      rateLimit: { callsPerHour: 100 },
      circuitBreaker: { noProgressThreshold: 3, sameErrorThreshold: 5 },
      completion: { promise: '<promise>COMPLETE</promise>' },
      agents: { claude: { dangerouslySkipPermissions: false } },
    });
    expect(result.mapped.map((each) => `${each.from} → ${each.to}`)).toEqual([
      'defaults.max_iterations → maxIterations',
      'defaults.timeout_minutes → timeoutMinutes',
      'defaults.rate_limit_per_hour → rateLimit.callsPerHour',
      'circuit_breaker.no_progress_threshold → circuitBreaker.noProgressThreshold',
      'circuit_breaker.same_error_threshold → circuitBreaker.sameErrorThreshold',
      'claude.dangerously_skip_permissions → agents.claude.dangerouslySkipPermissions',
    ]);
    expect(result.warnings).toEqual([expect.stringContaining('claude.allowed_tools is not used')]);
    // The mapped settings resolve like ralph's own.
    expect(configSchema.parse(result.settings).circuitBreaker.permissionDenialThreshold).toBe(2);
  });

  it("reads the spec's project example: quality_checks and protected_branches", () => {
    const result = parseConfigYaml(PROJECT, file);
    expect(result.settings).toEqual({
      maxIterations: 30,
      qualityChecks: {
        backend: 'docker compose exec backend pytest tests/',
        frontend: 'docker compose exec frontend pnpm check',
      },
      protectedBranches: ['main', 'master', 'develop'],
    });
  });

  it('keeps ralph keys beside hybrid ones, and refuses both spellings of one setting', () => {
    expect(
      parseConfigYaml('profile: quality\ndefaults:\n  max_iterations: 4\n', file).settings,
    ).toEqual({
      profile: 'quality',
      maxIterations: 4,
    });
    expect(() =>
      parseConfigYaml('maxIterations: 3\ndefaults:\n  max_iterations: 4\n', file),
    ).toThrow(/both defaults\.max_iterations and maxIterations are set/);
  });

  it('names an unknown key of a hybrid section with the keys it has', () => {
    expect(() => parseConfigYaml('defaults:\n  max_iteration: 4\n', file)).toThrow(
      /unknown Ralph Hybrid setting defaults\.max_iteration/,
    );
    try {
      parseConfigYaml('defaults:\n  max_iteration: 4\n', file);
    } catch (error) {
      expect((error as { hint: string }).hint).toContain('max_iterations (→ maxIterations)');
    }
  });

  it('a mapped value of the wrong type is still refused by the schema', () => {
    expect(() => parseConfigYaml('defaults:\n  max_iterations: lots\n', file)).toThrow(
      /maxIterations/,
    );
  });

  it("skips keys ralph does not know in ralph-hybrid's own file, and refuses them in ralph's", () => {
    const text = 'profiles:\n  fast: {}\ndefaults:\n  max_iterations: 4\n';
    const hybrid = parseConfigYaml(text, file, { hybridFile: true });
    expect(hybrid.settings).toEqual({ maxIterations: 4 });
    expect(hybrid.warnings).toEqual([
      expect.stringContaining('profiles is a Ralph Hybrid setting'),
    ]);
    expect(() => parseConfigYaml(text, '/repo/.ralph/config.yaml')).toThrow(/profiles/);
  });

  it("loads ralph-hybrid's files below ralph's own: project over global, ralph's over both", async () => {
    const root = await mkdtemp(join(tmpdir(), 'ralph-hybrid-config-'));
    const home = join(root, 'home');
    const repo = join(root, 'repo');
    await mkdir(join(home, '.ralph-hybrid'), { recursive: true });
    await mkdir(join(repo, '.ralph-hybrid'), { recursive: true });
    await mkdir(join(repo, '.ralph'), { recursive: true });
    await writeFile(join(home, '.ralph-hybrid', 'config.yaml'), GLOBAL);
    await writeFile(join(repo, '.ralph-hybrid', 'config.yaml'), PROJECT);
    const load = () => loadConfig({ homeDir: home, env: {}, repoRoot: repo });
    const hybridOnly = await load();
    expect(hybridOnly.config.maxIterations).toBe(30);
    expect(hybridOnly.config.timeoutMinutes).toBe(15);
    expect(hybridOnly.sources.maxIterations).toBe('project');
    expect(hybridOnly.mapped).toHaveLength(9);
    await writeFile(join(repo, '.ralph', 'config.yaml'), 'maxIterations: 7\n');
    expect((await load()).config.maxIterations).toBe(7);
  });
});
