import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRD, PROGRESS, SPEC } from '../fixtures/plan-feature.js';
import { runRalph, tempRepo, testEnv } from './harness.js';

const LOOP = '.ralph/feature-csv-export';

async function feature(files: { spec?: string; prd?: string } = {}) {
  const { repo, home } = await tempRepo();
  const dir = join(repo, LOOP);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'prompt.md'), 'Implement the next story.\n');
  if (files.spec !== '') await writeFile(join(dir, 'spec.md'), files.spec ?? SPEC);
  if (files.prd !== '') await writeFile(join(dir, 'prd.json'), files.prd ?? PRD);
  await writeFile(join(dir, 'progress.txt'), PROGRESS);
  const env = testEnv(home);
  const read = (name: string) => readFile(join(dir, name), 'utf8');
  const ralph = (...args: string[]) => runRalph(args, repo, env);
  return { repo, dir, read, ralph };
}

async function expectValidates(ralph: (...args: string[]) => ReturnType<typeof runRalph>) {
  const validate = await ralph('validate');
  expect(validate.stdout).toContain('✓ Sync check passed');
  expect(validate.code, validate.stdout).toBe(0);
}

describe('ralph amend (built binary, temp git repo)', () => {
  it('add → correct → remove: each leaves a pair that validates, with the audit trail', async () => {
    const { read, ralph } = await feature();
    await expectValidates(ralph);

    const add = await ralph(
      'amend',
      'add',
      '--title',
      'Export data as CSV',
      '--description',
      'As a user I want to export my data as CSV',
      '--criterion',
      'Export button visible',
      '--criterion',
      'Typecheck passes',
      '--reason',
      'Users need data export for reporting',
    );
    expect(add.stderr).toBe('');
    expect(add.stdout).toContain('AMD-001: added STORY-004: Export data as CSV (priority 4)');
    expect(add.code).toBe(0);
    await expectValidates(ralph);

    const correct = await ralph(
      'amend',
      'correct',
      'STORY-002',
      '--criterion',
      'Email validated against RFC 5322',
      '--criterion',
      'Typecheck passes',
      '--reason',
      'Email validation was underspecified',
    );
    expect(correct.stderr).toContain('STORY-002 passes: the correction resets it to passes: false');
    expect(correct.code).toBe(0);
    await expectValidates(ralph);

    const remove = await ralph('amend', 'remove', 'STORY-002', '--reason', 'Moved to issue #47');
    expect(remove.stderr).toContain('STORY-002 blocks STORY-003 (passes: false)');
    expect(remove.stdout).toContain('AMD-003: descoped STORY-002');
    expect(remove.code).toBe(0);
    await expectValidates(ralph);

    const spec = await read('spec.md');
    expect(spec.startsWith(SPEC.slice(0, SPEC.indexOf('### STORY-002')))).toBe(true);
    expect(spec).toContain('### STORY-002: Validate user input (Removed AMD-003)');
    const prd = JSON.parse(await read('prd.json')) as { userStories: { id: string }[] };
    expect(prd.userStories.map((s) => s.id)).toEqual(['STORY-001', 'STORY-003', 'STORY-004']);
    const progress = await read('progress.txt');
    expect(progress.startsWith(PROGRESS)).toBe(true);
    for (const id of ['AMD-001', 'AMD-002', 'AMD-003'])
      expect(progress).toContain(`## Amendment ${id}:`);

    const status = await ralph('amend', 'status', '--json');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      stories: { total: 3, passing: 1 },
      amendments: [
        { id: 'AMD-001', type: 'add', stories: ['STORY-004'] },
        { id: 'AMD-002', type: 'correct' },
        { id: 'AMD-003', type: 'remove' },
      ],
      descoped: [{ id: 'STORY-002', amendment: 'AMD-003' }],
      nextAmendmentId: 'AMD-004',
    });
  });

  it('names a missing flag off a terminal, and writes nothing', async () => {
    const { read, ralph } = await feature();
    const result = await ralph('amend', 'remove', 'STORY-002');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--reason is required');
    expect(await read('spec.md')).toBe(SPEC);
    expect(await read('prd.json')).toBe(PRD);
    expect(await read('progress.txt')).toBe(PROGRESS);
  });

  it('refuses while a run holds the loop directory', async () => {
    const { dir, read, ralph } = await feature();
    const lock = join(dir, '.ralph.lock');
    await mkdir(lock);
    const holder = {
      pid: process.pid,
      hostname: hostname(),
      command: 'ralph run',
      startedAt: new Date().toISOString(),
    };
    await writeFile(join(lock, 'holder-0123456789abcdef.json'), JSON.stringify(holder));
    const result = await ralph(
      'amend',
      'add',
      '--title',
      't',
      '--description',
      'd',
      '--criterion',
      'c',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('a run holds');
    expect(await read('prd.json')).toBe(PRD);
    const sync = await ralph('sync');
    expect(sync.stderr).toContain('a run holds');
  });
});

describe('ralph sync (built binary)', () => {
  it('regenerates prd.json after spec.md changed, and validate passes again', async () => {
    const { dir, read, ralph } = await feature();
    const edited = SPEC.replace('- [ ] Email field is required', '- [ ] Email is validated');
    await writeFile(join(dir, 'spec.md'), edited);
    const before = await ralph('validate');
    expect(before.code).toBe(2);
    expect(before.stdout).toContain('run `ralph sync`');
    const sync = await ralph('sync');
    expect(sync.stderr).toContain("STORY-002's acceptance criteria changed: passes reset to false");
    expect(sync.stdout).toContain('STORY-002: acceptance criteria updated');
    expect(sync.code).toBe(0);
    await expectValidates(ralph);
    const again = await ralph('sync');
    expect(again.stdout).toContain('is in sync; nothing to change');
    expect(JSON.parse(await read('prd.json'))).toMatchObject({ custom: { keep: 'me' } });
  });

  it('--from prd writes a spec.md for a prd.json planned in JSON', async () => {
    const { read, ralph } = await feature({ spec: '' });
    const sync = await ralph('sync', '--from', 'prd');
    expect(sync.code).toBe(0);
    expect(await read('spec.md')).toContain('### STORY-003: Advanced filtering');
    await expectValidates(ralph);
  });

  it('writes prd.json from a spec.md alone', async () => {
    const { read, ralph } = await feature({ prd: '' });
    const sync = await ralph('sync');
    expect(sync.code).toBe(0);
    expect(JSON.parse(await read('prd.json'))).toMatchObject({ description: 'CSV export' });
    await expectValidates(ralph);
  });

  it('refuses to write a prd.json beside a feature_list.json', async () => {
    const { dir, ralph } = await feature({ prd: '' });
    await writeFile(join(dir, 'feature_list.json'), '[]\n');
    const sync = await ralph('sync');
    expect(sync.code).toBe(2);
    expect(sync.stderr).toContain('uses feature_list.json, not prd.json');
  });
});
