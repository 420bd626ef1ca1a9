import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from './harness.js';

const LOOP = '.ralph/feature-csv-export';
const FIXTURES = join(import.meta.dirname, '../fixtures/import');

async function repoWith(...fixtures: string[]) {
  const { repo, home } = await tempRepo();
  for (const name of fixtures) await copyFile(join(FIXTURES, name), join(repo, name));
  const run = (args: string[]) => runRalph(args, repo, testEnv(home));
  return { repo, home, run };
}

describe('ralph import (built binary)', () => {
  it('imports a snarktank PRD into the branch loop directory, and the result validates', async () => {
    const { repo, run } = await repoWith('snarktank-task-priority-prd.md');
    const result = await run(['import', 'snarktank-task-priority-prd.md']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Imported 4 stories (0 passing) from snarktank-task-priority-prd.md (markdown: story headings (US))',
    );
    expect(result.stdout).toContain(`Wrote ${LOOP}/prd.json`);
    const prd = JSON.parse(await readFile(join(repo, LOOP, 'prd.json'), 'utf8')) as {
      userStories: { id: string }[];
    };
    expect(prd.userStories.map((story) => story.id)).toEqual([
      'US-001',
      'US-002',
      'US-003',
      'US-004',
    ]);
    const validate = await run(['validate', '--json']);
    const report = JSON.parse(validate.stdout) as { checks: { name: string; status: string }[] };
    expect(report.checks.find((check) => check.name === 'task-list')?.status).toBe('pass');
    expect(validate.code).toBe(0);
  });

  for (const [spec, count] of [
    ['hybrid-f21-sync-spec.md', '9 stories, 0 passing'],
    ['hybrid-spec-amendments.md', '3 stories, 1 passing'],
  ] as const) {
    it(`${spec} imported beside itself passes validate's sync check`, async () => {
      const { repo, run } = await repoWith(spec);
      await mkdir(join(repo, LOOP), { recursive: true });
      await copyFile(join(repo, spec), join(repo, LOOP, 'spec.md'));
      const result = await run(['import', `${LOOP}/spec.md`]);
      expect(result.code, result.stderr).toBe(0);
      const validate = await run(['validate']);
      expect(validate.stdout).toContain('✓ Sync check passed');
      expect(validate.stdout).toContain(count);
    });
  }

  it('keeps an existing prd.json unless --force; -o and --format choose output and reader', async () => {
    const { repo, run } = await repoWith('flat-checklist-priorities.md', 'requirements.json');
    expect((await run(['import', 'flat-checklist-priorities.md'])).code).toBe(0);
    const prdPath = join(repo, LOOP, 'prd.json');
    const first = await readFile(prdPath, 'utf8');

    const again = await run(['import', 'requirements.json']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`refusing to overwrite ${LOOP}/prd.json`);
    expect(again.stderr).toContain('--force');
    expect(await readFile(prdPath, 'utf8')).toBe(first);

    const forced = await run(['import', 'requirements.json', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(prdPath, 'utf8')).toContain('"REQ-1"');

    await writeFile(join(repo, 'plan.txt'), '- [ ] one\n- [x] two\n');
    const other = await run(['import', 'plan.txt', '-o', 'out/', '--format', 'markdown']);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toContain('Imported 2 stories (1 passing)');
    expect(existsSync(join(repo, 'out', 'prd.json'))).toBe(true);
    expect((await run(['validate', 'out'])).stdout).toContain('prd.json schema valid');
  });

  it('refuses a file with no tasks, a PDF and a binary, and writes nothing', async () => {
    const { repo, run } = await repoWith('no-tasks.md', 'not-a-prd.pdf', 'binary.docx');
    const cases: [string, RegExp][] = [
      ['no-tasks.md', /no-tasks\.md: no tasks found, nothing to import/],
      ['not-a-prd.pdf', /not-a-prd\.pdf is a PDF: ralph import reads text/],
      ['binary.docx', /binary\.docx is a binary file/],
    ];
    for (const [file, message] of cases) {
      const result = await run(['import', file]);
      expect(result.code, file).toBe(2);
      expect(result.stderr, file).toMatch(message);
      expect(result.stderr, file).toContain('nothing was written');
      expect(result.stdout, file).toBe('');
    }
    expect(existsSync(join(repo, '.ralph'))).toBe(false);
  });
});

describe('ralph import outside a repository', () => {
  it('needs -o there, and writes where -o says', async () => {
    const { home } = await tempRepo();
    const dir = await mkdtemp(join(tmpdir(), 'ralph-import-nogit-'));
    await copyFile(join(FIXTURES, 'requirements.json'), join(dir, 'requirements.json'));
    const refused = await runRalph(['import', 'requirements.json'], dir, testEnv(home));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('hint: pass -o OUT');
    expect(await readdir(dir)).toEqual(['requirements.json']);
    const written = await runRalph(
      ['import', 'requirements.json', '-o', 'plan/prd.json'],
      dir,
      testEnv(home),
    );
    expect(written.code, written.stderr).toBe(0);
    expect(existsSync(join(dir, 'plan', 'prd.json'))).toBe(true);
  });
});

describe('ralph archive (built binary)', () => {
  it('archives the loop, lists the archives, and leaves the loop as it was', async () => {
    const { repo, run } = await repoWith();
    expect((await run(['init'])).code).toBe(0);
    const before = await readFile(join(repo, LOOP, 'prd.json'), 'utf8');

    expect((await run(['archive', '--list'])).stdout).toContain('No archives yet.');
    const result = await run(['archive']);
    expect(result.code, result.stderr).toBe(0);
    const match = /^Archived to (\S+)$/m.exec(result.stdout);
    expect(match?.[1]).toMatch(
      /^\.ralph\/feature-csv-export\/archive\/\d{8}T\d{6}Z-feature-csv-export$/,
    );
    const archived = join(repo, match?.[1] ?? '');
    expect((await readdir(archived)).sort()).toEqual(['prd.json', 'progress.txt', 'spec.md']);
    expect(await readFile(join(archived, 'prd.json'), 'utf8')).toBe(before);
    expect(await readFile(join(repo, LOOP, 'prd.json'), 'utf8')).toBe(before);

    const list = await run(['archive', '--list']);
    expect(list.stdout).toContain(`${match?.[1]}  0/2 passing`);
    const json = JSON.parse((await run(['archive', '--list', '--json'])).stdout) as {
      archives: { name: string; stories: number; archivedAt: string }[];
    };
    expect(json.archives).toHaveLength(1);
    expect(json.archives[0]).toMatchObject({ stories: 2 });
    expect(json.archives[0]?.archivedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('refuses while a run holds the loop, and archives nothing', async () => {
    const { repo, run } = await repoWith();
    expect((await run(['init'])).code).toBe(0);
    const lock = join(repo, LOOP, '.ralph.lock');
    await mkdir(lock);
    // A holder on another host always counts as alive: its process cannot be checked from here.
    await writeFile(
      join(lock, 'holder-0123456789abcdef.json'),
      JSON.stringify({
        pid: 4242,
        hostname: 'build-box-elsewhere',
        command: 'ralph run .ralph/feature-csv-export',
        startedAt: new Date().toISOString(),
      }),
    );
    const result = await run(['archive']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ralph run .ralph/feature-csv-export');
    expect(existsSync(join(repo, LOOP, 'archive'))).toBe(false);
  });

  it('says so when the loop directory has no task list', async () => {
    const { repo, run } = await repoWith();
    await mkdir(join(repo, 'empty'));
    const result = await run(['archive', 'empty']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nothing to archive');
  });
});
