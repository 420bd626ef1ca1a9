import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';

/**
 * Each script of the template library (templates/library/scripts/) run with node on a small
 * project of its kind, written here: the JSON report on stdout, the summary on stderr, the exit
 * code.
 */

const SCRIPTS = resolve(import.meta.dirname, '../../templates/library/scripts');

interface ScriptRun {
  code: number | null;
  report: Record<string, unknown> & { summary: Record<string, unknown> };
  stderr: string;
}

/** Async on purpose: endpoint-validation talks to a server living in this process. */
function runScript(name: string, args: string[], cwd: string): Promise<ScriptRun> {
  return new Promise((done, failed) => {
    const child = spawn(process.execPath, [join(SCRIPTS, name), ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', failed);
    child.on('close', (code) => {
      try {
        done({ code, report: JSON.parse(stdout) as ScriptRun['report'], stderr });
      } catch {
        failed(new Error(`not JSON on stdout: ${stdout}\nstderr: ${stderr}`));
      }
    });
  });
}

async function project(files: Record<string, string | Buffer>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'ralph-template-script-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe('css-audit', () => {
  it('reports the variables used but not defined, and those defined but unused', async () => {
    const root = await project({
      'styles/theme.css':
        ':root {\n  --color-bg: #fff;\n  --border: 1px solid;\n  --unused-gap: 4px;\n}\n',
      'src/Card.tsx':
        'export const Card = () => <div style={{ background: "var(--color-bg)", color: "var(--color-text)" }} />;\n',
      'src/card.scss': '.card { border: var(--border); outline: var(--focus-ring, blue); }\n',
      'node_modules/lib/x.css': '.x { color: var(--from-a-dependency); }\n',
    });
    const run = await runScript('css-audit.mjs', [], root);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({
      audit: 'css-variables',
      summary: {
        variables_used: 4,
        variables_defined: 3,
        variables_undefined: 2,
        variables_unused: 1,
        status: 'fail',
      },
      undefined: ['--color-text', '--focus-ring'],
      undefined_with_fallback: ['--focus-ring'],
      unused: ['--unused-gap'],
      used_at: { '--color-text': ['src/Card.tsx:1'], '--focus-ring': ['src/card.scss:1'] },
    });
    expect(run.stderr).toContain(
      '4 variables used, 3 defined, 2 undefined (--color-text, --focus-ring)',
    );
    await writeFile(
      join(root, 'styles/more.css'),
      ':root { --color-text: #111; --focus-ring: red; }\n',
    );
    const fixed = await runScript('css-audit.mjs', ['styles', 'src'], root);
    expect(fixed.code).toBe(0);
    expect(fixed.report.summary.status).toBe('pass');
  });
});

describe('template-comparison', () => {
  it('lists the classes of the Jinja2 source that the React target lacks, per file', async () => {
    const root = await project({
      'old/base.html.j2':
        '<nav class="navbar navbar-dark {{ extra_class }}">\n<a class=\'brand\' href="/">x</a></nav>\n',
      'old/list.html.j2':
        '{% for item in items %}<li class="list-item {% if item.done %}done{% endif %}">{% endfor %}\n',
      'new/Nav.jsx':
        'export const Nav = () => <nav className="navbar"><a className={"brand"}>x</a></nav>;\n',
      'new/List.tsx': 'export const List = () => <li className={`list-item extra-new`} />;\n',
    });
    const run = await runScript('template-comparison.mjs', ['old', 'new'], root);
    expect(run.code).toBe(1);
    expect(run.report).toMatchObject({
      audit: 'template-comparison',
      summary: { source_files: 2, target_files: 2, missing: 2, extra: 1, status: 'fail' },
      // A class a template adds under a condition is still one the target must have.
      missing: ['done', 'navbar-dark'],
      extra: ['extra-new'],
      missing_by_file: { 'base.html.j2': ['navbar-dark'], 'list.html.j2': ['done'] },
    });
    expect(run.stderr).toContain('2 missing from the target (done, navbar-dark)');
    // A usage error prints no report: runScript rejects with what was on stderr.
    await expect(runScript('template-comparison.mjs', ['old'], root)).rejects.toThrow(
      'usage: template-comparison.mjs SOURCE_DIR TARGET_DIR',
    );
  });
});

describe('endpoint-validation', () => {
  it('checks listed and discovered endpoints of a running server in one call', async () => {
    const server = createServer((request, response) => {
      const routes: Record<string, number> = {
        'GET /health': 200,
        'GET /users': 200,
        'GET /broken': 500,
        'POST /items': 201,
        'GET /old': 301,
      };
      response.writeHead(routes[`${request.method} ${request.url}`] ?? 404).end('x');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    onTestFinished(
      () =>
        new Promise<void>((closed) => {
          server.close(() => {
            closed();
          });
        }),
    );
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const root = await project({
      'endpoints.txt': '# the API\nGET /health\nPOST /items 201\n/broken\n/old\n',
      'server/app.js':
        "app.get('/users', list);\napp.get('/users/:id', one);\napp.get('/health', ok);\n",
      'server/views.py': '@app.route("/missing")\ndef missing(): pass\n',
    });
    const run = await runScript(
      'endpoint-validation.mjs',
      ['--base', base, '--endpoints', 'endpoints.txt', '--discover', 'server'],
      root,
    );
    expect(run.code).toBe(1);
    expect(run.report.summary).toEqual({
      total: 7,
      passed: 4,
      failed: 2,
      skipped: 1,
      status: 'fail',
    });
    const results = run.report.results as {
      method: string;
      path: string;
      status?: number;
      ok: boolean | null;
    }[];
    expect(results.map((each) => [each.method, each.path, each.status ?? null, each.ok])).toEqual([
      ['GET', '/health', 200, true],
      ['POST', '/items', 201, true],
      ['GET', '/broken', 500, false],
      ['GET', '/old', 301, true],
      ['GET', '/users', 200, true],
      ['GET', '/users/:id', null, null],
      ['GET', '/missing', 404, false],
    ]);
    expect(run.stderr).toContain('4/7 passed, 2 failed, 1 skipped');
    expect(run.stderr).toContain('GET /broken: 500');
  });
});

describe('file-inventory', () => {
  it('lists the files by category and includes the text asked for, within the byte limit', async () => {
    const root = await project({
      'src/app.ts': 'export const app = 1;\nexport const two = 2;\n',
      'src/app.test.ts': "import { app } from './app';\n",
      'styles/site.css': 'body {}\n',
      'templates/page.html': '<p></p>\n',
      'README.md': '# x\n',
      'package.json': '{}\n',
      'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
      'node_modules/dep/index.js': 'skipped\n',
      'src/big.ts': `${'x'.repeat(500)}\n`,
    });
    const run = await runScript(
      'file-inventory.mjs',
      ['--content', 'source', '--max-bytes', '100'],
      root,
    );
    expect(run.code).toBe(0);
    expect(run.report.summary).toMatchObject({
      files: 8,
      by_category: { source: 2, test: 1, style: 1, template: 1, config: 1, docs: 1, other: 1 },
      contents_included: 1,
      contents_omitted: 1,
      status: 'ok',
    });
    const categories = run.report.categories as Record<
      string,
      { path: string; lines: number | null }[]
    >;
    expect(categories.source).toEqual([
      { path: 'src/app.ts', lines: 2, bytes: 44 },
      { path: 'src/big.ts', lines: 1, bytes: 501 },
    ]);
    expect(categories.other).toEqual([{ path: 'logo.png', lines: null, bytes: 8 }]);
    expect(run.report.contents).toEqual({
      'src/app.ts': 'export const app = 1;\nexport const two = 2;\n',
    });
    expect(run.stderr).toContain('8 files');
    expect(run.stderr).toContain('1 left out (--max-bytes)');
  });
});
