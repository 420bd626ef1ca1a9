import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from './harness.js';

const LOOP = '.ralph/feature-csv-export';

describe('ralph init --template (built binary)', () => {
  it('tdd writes the test-first prompt with its Amendment awareness section', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['init', '--template', 'tdd'], repo, testEnv(home));
    expect(result.code, result.stderr).toBe(0);
    const prompt = await readFile(join(repo, LOOP, 'prompt.md'), 'utf8');
    const headings = [...prompt.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(headings).toEqual(['Context files', 'Workflow', 'Amendment awareness', 'Rules']);
    expect(prompt).toContain('## Amendment AMD-NNN');
    expect(prompt).toContain('<promise>STORY_COMPLETE</promise>');
    expect(prompt).toContain('<promise>COMPLETE</promise>');
    const plain = await readFile(join(import.meta.dirname, '../../templates/prompt.md'), 'utf8');
    expect(prompt).not.toBe(plain);
  });

  it('the default stays the plain prompt; an unknown template is refused with the choices', async () => {
    const { repo, home } = await tempRepo();
    const bad = await runRalph(['init', '--template', 'bdd'], repo, testEnv(home));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('default, tdd');
    const result = await runRalph(['init'], repo, testEnv(home));
    expect(result.code).toBe(0);
    const prompt = await readFile(join(repo, LOOP, 'prompt.md'), 'utf8');
    expect(prompt).not.toContain('Amendment awareness');
  });
});

const STORY = {
  id: 'STORY-001',
  title: 'Export rows as CSV',
  description: 'As a user I want a CSV of the table',
  acceptanceCriteria: ['The file has one line per row'],
  priority: 1,
  passes: false,
};

describe('a ralph-hybrid project (built binary)', () => {
  it('finds .ralph-hybrid/<branch>/ and maps its config.yaml, which validate lists', async () => {
    const { repo, home } = await tempRepo();
    const loop = join(repo, '.ralph-hybrid', 'feature-csv-export');
    await mkdir(loop, { recursive: true });
    await writeFile(
      join(loop, 'prd.json'),
      JSON.stringify({ description: 'csv', userStories: [STORY] }, null, 2),
    );
    await writeFile(join(loop, 'progress.txt'), '# Progress Log: feature-csv-export\n');
    // The spec's project example, verbatim.
    await writeFile(
      join(repo, '.ralph-hybrid', 'config.yaml'),
      'defaults:\n  max_iterations: 30\n\nquality_checks:\n  backend: "true"\n\n' +
        '# Protected branches - ralph will warn if running on these\nprotected_branches:\n  - main\n  - master\n  - develop\n',
    );
    // The spec's global example, in ralph-hybrid's place for it.
    await mkdir(join(home, '.ralph-hybrid'));
    await writeFile(
      join(home, '.ralph-hybrid', 'config.yaml'),
      'defaults:\n  max_iterations: 20\n  timeout_minutes: 15\n  rate_limit_per_hour: 100\n' +
        'circuit_breaker:\n  no_progress_threshold: 3\n  same_error_threshold: 5\n' +
        'completion:\n  promise: "<promise>COMPLETE</promise>"\n' +
        'claude:\n  dangerously_skip_permissions: false\n  allowed_tools: "Write,Bash(git *),Read"\n',
    );
    const env = testEnv(home);

    const validate = await runRalph(['validate'], repo, env);
    expect(validate.stdout).toContain('Loop directory: .ralph-hybrid/feature-csv-export/');
    expect(validate.stdout).toContain("✓ Ralph Hybrid settings read as ralph's (9)");
    expect(validate.stdout).toContain(
      '- .ralph-hybrid/config.yaml: defaults.max_iterations → maxIterations',
    );
    expect(validate.stdout).toContain(
      '- .ralph-hybrid/config.yaml: protected_branches → protectedBranches',
    );
    expect(validate.stdout).toMatch(
      /- \/.*\/\.ralph-hybrid\/config\.yaml: circuit_breaker\.same_error_threshold → circuitBreaker\.sameErrorThreshold/,
    );
    expect(validate.stderr).toContain('claude.allowed_tools is not used');
    expect(validate.code, validate.stdout).toBe(0);

    const json = JSON.parse((await runRalph(['validate', '--json'], repo, env)).stdout) as {
      loopDir: string;
      checks: { name: string; details: string[] }[];
    };
    expect(json.loopDir).toBe(loop);
    expect(json.checks[0]?.name).toBe('hybrid-config');

    const status = JSON.parse((await runRalph(['status', '--json'], repo, env)).stdout) as {
      loopDir: string;
      stories: { total: number };
    };
    expect(status).toMatchObject({ loopDir: loop, stories: { total: 1 } });
    const list = await runRalph(['list'], repo, env);
    expect(list.stdout).toContain('feature-csv-export');
  });

  it('.ralph/<branch>/ wins when both layouts have the loop', async () => {
    const { repo, home } = await tempRepo();
    for (const root of ['.ralph', '.ralph-hybrid']) {
      const loop = join(repo, root, 'feature-csv-export');
      await mkdir(loop, { recursive: true });
      await writeFile(join(loop, 'prd.json'), JSON.stringify({ userStories: [STORY] }));
    }
    const result = await runRalph(['validate', '--json'], repo, testEnv(home));
    expect((JSON.parse(result.stdout) as { loopDir: string }).loopDir).toBe(
      join(repo, '.ralph', 'feature-csv-export'),
    );
  });
});
