import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installSlashCommands, MANIFEST_NAME, slashCommandTexts } from './slash-commands.js';

const actions = (results: { name: string; action: string }[]) =>
  Object.fromEntries(results.map((r) => [r.name, r.action]));

describe('installSlashCommands', () => {
  it('creates, then changes nothing, keeps an edited file, and replaces it only with force', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'ralph-cmds-')), 'commands');
    expect(actions(await installSlashCommands(dir, 'ralph'))).toEqual({
      'ralph-plan': 'created',
      'ralph-amend': 'created',
      'ralph-prd': 'created',
    });
    const plan = await readFile(join(dir, 'ralph-plan.md'), 'utf8');
    expect(plan).toContain('`ralph sync`');
    expect(plan).not.toContain('{{ralph}}');
    const manifest = await readFile(join(dir, MANIFEST_NAME), 'utf8');

    expect(actions(await installSlashCommands(dir, 'ralph'))).toMatchObject({
      'ralph-plan': 'unchanged',
    });
    expect(await readFile(join(dir, MANIFEST_NAME), 'utf8')).toBe(manifest);

    await writeFile(join(dir, 'ralph-plan.md'), `${plan}\nMy own rule.\n`);
    expect(actions(await installSlashCommands(dir, 'ralph'))['ralph-plan']).toBe('kept');
    expect(await readFile(join(dir, 'ralph-plan.md'), 'utf8')).toContain('My own rule.');

    expect(actions(await installSlashCommands(dir, 'ralph', { force: true }))['ralph-plan']).toBe(
      'replaced',
    );
    expect(await readFile(join(dir, 'ralph-plan.md'), 'utf8')).toBe(plan);
  });

  it('updates a file that still holds what an earlier ralph wrote (another command prefix)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-cmds-'));
    await installSlashCommands(dir, 'node /old/bin.js');
    const results = actions(await installSlashCommands(dir, 'ralph'));
    expect(results).toEqual({
      'ralph-plan': 'updated',
      'ralph-amend': 'updated',
      'ralph-prd': 'updated',
    });
    expect(await readFile(join(dir, 'ralph-amend.md'), 'utf8')).toBe(
      (await slashCommandTexts('ralph')).get('ralph-amend'),
    );
  });

  it('counts an unrecorded differing file as the person’s (a command of the same name)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-cmds-'));
    await writeFile(join(dir, 'ralph-prd.md'), 'mine\n');
    await writeFile(join(dir, MANIFEST_NAME), '{broken');
    expect(actions(await installSlashCommands(dir, 'ralph'))['ralph-prd']).toBe('kept');
    expect(await readFile(join(dir, 'ralph-prd.md'), 'utf8')).toBe('mine\n');
  });

  it('the plan command carries the workflow the spec describes', async () => {
    const plan = (await slashCommandTexts('ralph')).get('ralph-plan') ?? '';
    for (const needle of [
      'DISCOVER',
      'SUMMARIZE',
      'ASSUMPTIONS',
      'CLARIFY',
      'RESEARCH',
      'ANALYZE',
      'DRAFT',
      'DECOMPOSE',
      'GENERATE',
      'VERIFY',
      '--list-assumptions',
      'ASSUMPTIONS.md',
      '--research',
      'RESEARCH-<topic>.md',
      '--regenerate',
      '--skip-verify',
      'PLAN-REVIEW.md',
      'gh issue view',
      'ONE iteration',
      '$ARGUMENTS',
    ]) {
      expect(plan, needle).toContain(needle);
    }
  });
});
