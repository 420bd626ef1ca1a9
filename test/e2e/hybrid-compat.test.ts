import { readFile } from 'node:fs/promises';
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
