import { execFile } from 'node:child_process';
import {
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedRun } from '../run/agent-stream.js';
import { FAKE_BIN_DIR, fakeClaudeSandboxEnv } from '../harness.js';

/**
 * The package as a user gets it: `npm pack`, installed into an empty prefix by a user without a C
 * compiler (PATH holds only node, npm and sh: a package that needs node-gyp fails the install),
 * then its `ralph` bin run (`ralph guard`, `ralph demo`), and the README's library example run
 * against the installed package — with the fake claude — and type-checked as a TypeScript
 * consumer would. npm takes the dependencies from its cache when it has them (--prefer-offline;
 * CI has just run `npm ci`), the registry otherwise.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return new Promise<Ran>((done) => {
    execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}

/** The first ```js block of the README's "Use as a library" section. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use as a library'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (match?.[1] === undefined) throw new Error('README: no js example under "Use as a library"');
  return match[1];
}

let work: string;
let prefix: string;

/** What a user without a compiler has: node, npm and a shell, nothing else on PATH. */
async function bareEnv(): Promise<NodeJS.ProcessEnv> {
  const bin = join(work, 'bare-bin');
  await mkdir(bin);
  const npm = await realpath(
    (await run('sh', ['-c', 'command -v npm'], { cwd: work })).stdout.trim(),
  );
  await symlink(process.execPath, join(bin, 'node'));
  await symlink(npm, join(bin, 'npm'));
  await symlink('/bin/sh', join(bin, 'sh'));
  const kept = Object.entries(process.env).filter(([name]) =>
    /^(HOME|NODE_EXTRA_CA_CERTS|(https?|no)_proxy)$/i.test(name),
  );
  return { ...Object.fromEntries(kept), PATH: bin, npm_config_update_notifier: 'false' };
}

/** Native code anywhere in an installed tree: a compiled addon or a node-gyp project. */
async function nativeFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const found = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return nativeFiles(path);
      return entry.name === 'binding.gyp' || entry.name.endsWith('.node') ? [path] : [];
    }),
  );
  return found.flat();
}

beforeAll(async () => {
  work = await realpath(await mkdtemp(join(tmpdir(), 'ralph-pack-')));
  const packed = await run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT });
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = (await readdir(work)).find((name) => name.endsWith('.tgz'));
  expect(tarball).toMatch(/^ralph-run-\d/);
  prefix = join(work, 'prefix');
  const env = await bareEnv();
  const installed = await run(
    join(env.PATH ?? '', 'npm'),
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      // npm ≥ 11.19 skips dependencies' install scripts unless allowed; older npm runs them.
      '--dangerously-allow-all-scripts',
      join(work, tarball ?? ''),
    ],
    { cwd: work, env },
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('the packed package, installed without a compiler', () => {
  it('needs no runtime dependency with an install script, and has no native code', async () => {
    const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev !== true && entry.hasInstallScript)
      .map(([path]) => path);
    expect(scripted).toEqual([]);
    const installed = join(prefix, 'lib', 'node_modules', 'ralph-run');
    expect(await nativeFiles(installed)).toEqual([]);
    await expect(
      readFile(join(installed, 'dist', 'guard', 'shell', 'tree-sitter-bash.wasm')),
    ).resolves.toBeInstanceOf(Buffer);
  });

  it('ralph guard judges Bash with the installed parser', async () => {
    const project = join(work, 'guarded');
    await mkdir(join(project, '.git'), { recursive: true });
    const decide = async (command: string) => {
      const payload = JSON.stringify({
        session_id: 's-1',
        cwd: project,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command },
        tool_use_id: 't-1',
      });
      const ran = await run(
        'sh',
        ['-c', `printf '%s' "$1" | "$2" guard`, 'sh', payload, join(prefix, 'bin', 'ralph')],
        {
          cwd: project,
          env: { PATH: process.env.PATH, HOME: work },
        },
      );
      return JSON.parse(ran.stdout) as {
        hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
      };
    };
    const denied = await decide('npm test; rm -rf /');
    expect(denied.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(denied.hookSpecificOutput.permissionDecisionReason).toContain('`rm -rf /` deletes /');
    expect((await decide('ls -la && git status')).hookSpecificOutput.permissionDecision).toBe(
      'allow',
    );
  });

  it('ralph demo runs from the installed bin', async () => {
    const demo = await run(
      join(prefix, 'bin', 'ralph'),
      ['demo', '--dir', join(work, 'demo'), '--pause', '0'],
      {
        cwd: work,
        env: { PATH: process.env.PATH, HOME: work, NO_COLOR: '1' },
      },
    );
    expect(demo.code, demo.stdout + demo.stderr).toBe(0);
    expect(demo.stdout).toContain('COMPLETE — every story passes');
  }, 120_000);

  it("the README's library example runs against it, and type-checks", async () => {
    const project = join(work, 'project');
    const packageDir = join(prefix, 'lib', 'node_modules', 'ralph-run');
    await mkdir(join(project, 'node_modules'), { recursive: true });
    await symlink(packageDir, join(project, 'node_modules', 'ralph-run'));
    const env = {
      PATH: `${FAKE_BIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
      HOME: work,
      NO_COLOR: '1',
      FAKE_CLAUDE_SCRIPT_DIR: join(work, 'fake-claude'),
      ...fakeClaudeSandboxEnv(join(work, 'fake-claude')),
    };
    const git = (args: string[]) => run('git', args, { cwd: project, env });
    expect((await git(['init', '-q', '-b', 'feature/csv-export'])).code).toBe(0);
    const init = await run(join(prefix, 'bin', 'ralph'), ['init'], { cwd: project, env });
    expect(init.code, init.stderr).toBe(0);
    const loopDir = join(project, '.ralph', 'feature-csv-export');
    await rm(join(loopDir, 'spec.md'));
    const prd = (passes: boolean) =>
      `${JSON.stringify({ userStories: [{ id: 'US-001', title: 'Export CSV', description: 'Export the table as CSV', acceptanceCriteria: ['a CSV file is written'], priority: 1, passes }] }, null, 2)}\n`;
    await writeFile(join(loopDir, 'prd.json'), prd(false));
    await mkdir(env.FAKE_CLAUDE_SCRIPT_DIR);
    await writeFile(join(env.FAKE_CLAUDE_SCRIPT_DIR, 'done.json'), prd(true));
    await writeFile(
      join(env.FAKE_CLAUDE_SCRIPT_DIR, '1.sh'),
      `cp '${join(env.FAKE_CLAUDE_SCRIPT_DIR, 'done.json')}' '${join(loopDir, 'prd.json')}'\n`,
    );
    await writeFile(
      join(env.FAKE_CLAUDE_SCRIPT_DIR, '1.jsonl'),
      finishedRun('s-1', 'Exported. <promise>COMPLETE</promise>', 0.5),
    );

    await writeFile(join(project, 'example.mjs'), await readmeExample());
    const example = await run(process.execPath, ['example.mjs'], { cwd: project, env });
    expect(example.code, example.stdout + example.stderr).toBe(0);
    expect(example.stdout).toContain('#1 US-001: complete');
    expect(example.stdout).toContain('COMPLETE: every story passes ($0.50)');

    // The same code as TypeScript: the package's declarations type every name it uses.
    await writeFile(join(project, 'example.ts'), await readmeExample());
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['example.ts'],
      }),
    );
    await writeFile(join(project, 'package.json'), '{"type": "module"}\n');
    const typed = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, env });
    expect(typed.code, typed.stdout + typed.stderr).toBe(0);
  }, 120_000);
});
