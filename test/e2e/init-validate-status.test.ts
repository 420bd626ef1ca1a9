import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planStories, runRalph, tempRepo, testEnv } from './harness.js';

const LOOP = '.ralph/feature-csv-export';

describe('ralph init → validate → status (built binary, temp git repo)', () => {
  it('scaffolds a loop directory that validates, and reports its status as JSON', async () => {
    const { repo, home } = await tempRepo();
    // As a container's root would run it (validate warns about root without IS_SANDBOX=1).
    const env = testEnv(home, { IS_SANDBOX: '1' });

    const init = await runRalph(['init'], repo, env);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`Created ${LOOP}/`);
    for (const file of ['prompt.md', 'prd.json', 'spec.md', 'progress.txt', '.gitignore']) {
      expect((await readFile(join(repo, LOOP, file), 'utf8')).length).toBeGreaterThan(0);
    }
    const prompt = await readFile(join(repo, LOOP, 'prompt.md'), 'utf8');
    expect(prompt).toContain('<promise>STORY_COMPLETE</promise>');
    expect(prompt).toContain('{{completion.promise}}');

    // The example stories are refused until they are replaced, each named with its file and field.
    const refused = await runRalph(['validate'], repo, env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain("✗ 2 stories still hold the template's example text");
    expect(refused.stdout).toContain('STORY-001 (prd.json): title "Replace this example story"');
    expect(refused.stdout).toMatch(/STORY-002 \(spec\.md line \d+\): title "Replace this second/);
    expect(refused.stdout).toContain('hint: write your own title');
    // run's preflight refuses them too: no agent is started on a placeholder.
    const run = await runRalph(['run'], repo, env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("2 stories still hold the template's example text");

    await planStories(join(repo, LOOP));
    const validate = await runRalph(['validate'], repo, env);
    expect(validate.stdout).toContain('Preflight checks for branch: feature/csv-export');
    expect(validate.stdout).toContain('✓ Sync check passed');
    expect(validate.stdout).toContain('✓ Claude Code found: claude 2.1.330');
    expect(validate.stdout).toContain('All checks passed. Ready to run.');
    expect(validate.code).toBe(0);

    const status = await runRalph(['status', '--json'], repo, env);
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      branch: 'feature/csv-export',
      format: 'prd-hybrid',
      stories: { total: 2, passing: 0, open: 2 },
      complete: false,
      next: { id: 'STORY-001', priority: 1 },
      lastRun: null,
    });
  });

  it('validate --json reports every check with a stable name', async () => {
    const { repo, home } = await tempRepo();
    // As a container's root would run it (validate warns about root without IS_SANDBOX=1).
    const env = testEnv(home, { IS_SANDBOX: '1' });
    await runRalph(['init'], repo, env);
    await planStories(join(repo, LOOP));
    const result = await runRalph(['validate', '--json'], repo, env);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: { name: string; status: string }[];
    };
    expect(report.ok).toBe(true);
    expect(report.checks.map((check) => check.name)).toEqual([
      'branch',
      'folder',
      'files',
      'task-list',
      'spec',
      'sync',
      'agent',
      'sandbox',
      'prompt',
    ]);
  });

  it('init refuses to overwrite and writes nothing', async () => {
    const { repo, home } = await tempRepo();
    // As a container's root would run it (validate warns about root without IS_SANDBOX=1).
    const env = testEnv(home, { IS_SANDBOX: '1' });
    await mkdir(join(repo, LOOP), { recursive: true });
    await writeFile(join(repo, LOOP, 'prd.json'), 'mine');
    const result = await runRalph(['init'], repo, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('refusing to overwrite');
    expect(result.stderr).toContain('prd.json');
    expect(await readFile(join(repo, LOOP, 'prd.json'), 'utf8')).toBe('mine');
    await expect(stat(join(repo, LOOP, 'prompt.md'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('init DIR uses the folder as given', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['init', '.claude/data/ralph-loops/task-a'], repo, testEnv(home));
    expect(result.code).toBe(0);
    const prd = JSON.parse(
      await readFile(join(repo, '.claude/data/ralph-loops/task-a/prd.json'), 'utf8'),
    ) as {
      userStories: unknown[];
    };
    expect(prd.userStories).toHaveLength(2);
    await planStories(join(repo, '.claude/data/ralph-loops/task-a'));
    const validate = await runRalph(
      ['validate', '.claude/data/ralph-loops/task-a'],
      repo,
      testEnv(home),
    );
    expect(validate.code).toBe(0);
  });

  it('status shows the last run from status.json', async () => {
    const { repo, home } = await tempRepo();
    // As a container's root would run it (validate warns about root without IS_SANDBOX=1).
    const env = testEnv(home, { IS_SANDBOX: '1' });
    await runRalph(['init'], repo, env);
    const status = {
      schemaVersion: 1,
      state: 'REACHED_LIMIT',
      startedAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:30:00.000Z',
      iteration: 20,
      maxIterations: 20,
      storiesTotal: 2,
      storiesPassing: 1,
      exitReason: 'max iterations reached',
    };
    await writeFile(join(repo, LOOP, 'status.json'), JSON.stringify(status));
    const text = await runRalph(['status'], repo, env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Last run:       REACHED_LIMIT, iteration 20/20');
    expect(text.stdout).toContain('Stopped:        max iterations reached');
    const json = await runRalph(['status', '--json'], repo, env);
    expect((JSON.parse(json.stdout) as { lastRun: unknown }).lastRun).toMatchObject(status);
  });
});
