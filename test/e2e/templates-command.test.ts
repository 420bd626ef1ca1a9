import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, symlink, mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runRalph, tempRepo, testEnv } from './harness.js';

/** `ralph templates list | add | suggest`, validate's note, and the visual-diff hook it installs. */

const LOOP = '.ralph/feature-ui';

async function repoWithLoop() {
  const { repo, home } = await tempRepo('feature/ui');
  const env = testEnv(home);
  const init = await runRalph(['init'], repo, env);
  expect(init.code, init.stderr).toBe(0);
  return {
    repo,
    env,
    dir: join(repo, LOOP),
    ralph: (...args: string[]) => runRalph(args, repo, env),
  };
}

describe('ralph templates', () => {
  it('lists the library, and suggests templates from spec.md (validate too)', async () => {
    const { dir, ralph } = await repoWithLoop();
    const list = await ralph('templates', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { name: string }[]).map((each) => each.name);
    expect(names).toEqual([
      'visual-parity-migration',
      'adversarial-review',
      'css-audit',
      'endpoint-validation',
      'file-inventory',
      'template-comparison',
      'post-iteration-visual-diff',
    ]);
    expect((await ralph('templates', 'list')).stdout).toMatch(/Scripts:\n {2}css-audit +CSS/);

    await writeFile(
      join(dir, 'spec.md'),
      '# Settings page\n\nPort the settings page from Jinja2 to React; it must look the same.\n',
    );
    const suggest = await ralph('templates', 'suggest');
    expect(suggest.code, suggest.stderr).toBe(0);
    expect(suggest.stdout).toMatch(
      /visual-parity-migration +framework migration: "port", "react", "jinja2"; visual parity: "look the same"/,
    );
    expect(suggest.stdout).not.toContain('adversarial-review');
    const validate = await ralph('validate');
    expect(validate.stdout).toContain(
      'Templates that may help (from spec.md): visual-parity-migration, css-audit, template-comparison, post-iteration-visual-diff.',
    );
    expect((await ralph('templates', 'add', 'css-audit')).code).toBe(0);
    const json = JSON.parse((await ralph('templates', 'suggest', '--json')).stdout) as {
      template: string;
      added: boolean;
    }[];
    expect(json.find((each) => each.template === 'css-audit')?.added).toBe(true);
    expect((await ralph('validate')).stdout).not.toMatch(/may help.*css-audit/);
  });

  it('copies a template into the loop directory and never overwrites a changed copy without --force', async () => {
    const { dir, ralph } = await repoWithLoop();
    const added = await ralph('templates', 'add', 'visual-parity-migration', LOOP);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`${LOOP}/skills/visual-parity-migration.md: added`);
    const file = join(dir, 'skills', 'visual-parity-migration.md');
    await writeFile(file, '# adapted for this project\n');
    const again = await ralph('templates', 'add', 'visual-parity-migration');
    expect(again.stdout).toContain('kept (yours differs; --force replaces it)');
    expect(await readFile(file, 'utf8')).toBe('# adapted for this project\n');
    const forced = await ralph('templates', 'add', 'visual-parity-migration', '--force');
    expect(forced.stdout).toContain(': replaced');
    expect(await readFile(file, 'utf8')).toContain('class names');
    const unknown = await ralph('templates', 'add', 'no-such-template');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no template named no-such-template');
  });
});

function bash(file: string, cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn('bash', [file], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      done({ code, stdout, stderr });
    });
  });
}

describe('the post-iteration visual-diff hook', () => {
  it('says it skips when the project has no playwright-core', async () => {
    const { repo, env, dir, ralph } = await repoWithLoop();
    expect((await ralph('templates', 'add', 'post-iteration-visual-diff')).code).toBe(0);
    const hook = join(dir, 'hooks', 'post_iteration.d', 'visual-diff.sh');
    const run = await bash(hook, repo, { ...env, RALPH_FEATURE_DIR: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'visual-diff: skipped: playwright-core is not installed in this project',
    );
    // Its files sit where preflight expects no hook scripts of its own to check.
    expect((await ralph('validate')).stdout).not.toContain('Not a hook point');
  });

  it.skipIf(!existsSync('/usr/bin/chromium'))(
    'records a baseline, then finds the page unchanged, then changed',
    async () => {
      const { repo, env, dir, ralph } = await repoWithLoop();
      expect((await ralph('templates', 'add', 'post-iteration-visual-diff')).code).toBe(0);
      await mkdir(join(repo, 'node_modules'));
      await symlink(
        resolve(import.meta.dirname, '../../node_modules/playwright-core'),
        join(repo, 'node_modules', 'playwright-core'),
      );
      let colour = 'rgb(20, 120, 200)';
      const server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(
          `<html><body style="margin:0"><div style="width:200px;height:100px;background:${colour}"></div></body></html>`,
        );
      });
      await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
      onTestFinished(() => {
        server.close();
      });
      const port = (server.address() as AddressInfo).port;
      await writeFile(
        join(dir, 'hooks', 'visual-diff', 'config.json'),
        JSON.stringify({
          baseUrl: `http://127.0.0.1:${port}`,
          pages: ['/', '/about'],
          viewport: { width: 400, height: 300 },
          threshold: 0.001,
        }),
      );
      const hook = join(dir, 'hooks', 'post_iteration.d', 'visual-diff.sh');
      const hookEnv = { ...env, RALPH_FEATURE_DIR: dir };
      const first = await bash(hook, repo, hookEnv);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({
        summary: { baselines_created: 2, status: 'pass' },
      });
      expect(existsSync(join(dir, 'visual-baseline', 'index.png'))).toBe(true);
      expect(existsSync(join(dir, 'visual-baseline', 'about.png'))).toBe(true);
      expect(await readFile(join(dir, 'visual-current', '.gitignore'), 'utf8')).toBe('*\n');
      const same = await bash(hook, repo, hookEnv);
      expect(JSON.parse(same.stdout)).toMatchObject({
        summary: { same: 2, changed: 0, status: 'pass' },
      });
      colour = 'rgb(200, 20, 20)';
      const changed = await bash(hook, repo, hookEnv);
      expect(changed.code).toBe(1);
      const report = JSON.parse(changed.stdout) as {
        summary: object;
        results: { share: number }[];
      };
      expect(report.summary).toMatchObject({ changed: 2, status: 'fail' });
      // 200 × 100 of 400 × 300 pixels changed.
      expect(report.results[0]?.share).toBeCloseTo(20000 / 120000, 4);
      expect(changed.stderr).toContain('visual-diff: 0 same, 2 changed');
    },
    60_000,
  );
});
