import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RALPH_BIN } from '../harness.js';

/**
 * ralph installs where there is no C compiler (issue 10): the packed tarball is installed with a
 * PATH that holds only node, npm and sh — no cc, g++, make or python3, so any package that
 * needs node-gyp fails the install — and `ralph guard` then judges a Bash command. npm takes
 * the dependencies from its cache when it has them (--prefer-offline), the registry otherwise.
 */

const REPO = resolve(import.meta.dirname, '../../..');
const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-no-cc-')));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

/** What a user without a compiler has: node, npm and a shell, nothing else on PATH. */
function bareEnv(): NodeJS.ProcessEnv {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  const npm = realpathSync(
    execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim(),
  );
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(npm, join(bin, 'npm'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
  const kept = Object.entries(process.env).filter(([name]) =>
    /^(HOME|NODE_EXTRA_CA_CERTS|(https?|no)_proxy)$/i.test(name),
  );
  return { ...Object.fromEntries(kept), PATH: bin, npm_config_update_notifier: 'false' };
}

function run(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(
      file,
      args,
      { cwd: options.cwd, env: options.env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** Native code anywhere in an installed tree: a compiled addon or a node-gyp project. */
function nativeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) return nativeFiles(path);
    return entry.name === 'binding.gyp' || entry.name.endsWith('.node') ? [path] : [];
  });
}

describe('installing ralph without a C compiler', () => {
  it('needs no runtime dependency with an install script (package-lock.json)', () => {
    const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.dev !== true && entry.hasInstallScript)
      .map(([path]) => path);
    expect(scripted).toEqual([]);
  });

  it('installs the packed tarball with only node, npm and sh on PATH, and ralph guard judges Bash', async () => {
    expect(existsSync(RALPH_BIN), 'run `npm run build` first').toBe(true);
    const packed = execFileSync('npm', ['pack', '--silent', '--pack-destination', root], {
      cwd: REPO,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .at(-1);
    const app = join(root, 'app');
    mkdirSync(join(app, 'project', '.git'), { recursive: true });
    writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}\n');
    const env = bareEnv();
    const install = await run(
      join(env.PATH ?? '', 'npm'),
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        // npm ≥ 11.19 skips dependencies' install scripts unless allowed; older npm runs them.
        '--dangerously-allow-all-scripts',
        join(root, packed ?? ''),
      ],
      { cwd: app, env },
    );
    expect(install.code, install.stderr).toBe(0);
    const modules = join(app, 'node_modules');
    expect(nativeFiles(modules)).toEqual([]);
    expect(
      existsSync(join(modules, 'ralph', 'dist', 'guard', 'shell', 'tree-sitter-bash.wasm')),
    ).toBe(true);

    const guard = (command: string) =>
      run(join(modules, '.bin', 'ralph'), ['guard'], {
        cwd: join(app, 'project'),
        env,
        input: JSON.stringify({
          session_id: 's-1',
          cwd: join(app, 'project'),
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command },
          tool_use_id: 't-1',
        }),
      });
    const decisionOf = (stdout: string) =>
      (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } })
        .hookSpecificOutput.permissionDecision;
    const denied = await guard('npm test; rm -rf /');
    expect(denied.stdout).toContain('`rm -rf /` deletes /');
    expect(decisionOf(denied.stdout)).toBe('deny');
    const allowed = await guard('ls -la && git status');
    expect(decisionOf(allowed.stdout), allowed.stdout).toBe('allow');
  }, 120_000);
});
