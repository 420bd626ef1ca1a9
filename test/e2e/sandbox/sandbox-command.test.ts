import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeNeeding, tool } from '../../requirements.js';
import { outcome, RALPH_BIN, runRalph, spawnForTest, testEnv } from '../harness.js';

/**
 * `ralph sandbox -- COMMAND`: ordinary work succeeds inside the sandbox the agent gets, and the
 * attacks of issue 11 fail. Needs bubblewrap; under CI a missing one fails these tests.
 */

let repo = '';
let home = '';
const env = () =>
  testEnv(home, {
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@example.com',
  });
const sandboxed = (script: string) => runRalph(['sandbox', '--', 'sh', '-c', script], repo, env());

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describeNeeding(tool('bwrap'), 'ralph sandbox', () => {
  beforeAll(() => {
    // Outside /tmp: inside, /tmp is the run's private folder, and a home or a victim under it
    // would be out of sight rather than protected.
    const root = realpathSync(mkdtempSync('/var/tmp/ralph-sandbox-e2e-'));
    repo = join(root, 'repo');
    home = join(root, 'home');
    execFileSync('git', ['init', '-q', '-b', 'feature/sandbox', repo]);
    mkdirSync(home);
    write(join(repo, 'package.json'), JSON.stringify({ scripts: { test: 'node check.js' } }));
    write(join(repo, 'check.js'), "require('node:fs').writeFileSync('tested.txt', 'ok');\n");
    write(join(repo, 'src', 'index.js'), 'export const answer = 42;\n');
    write(join(repo, '.env'), 'API_KEY=sk-project-secret\n');
    write(join(repo, '.env.example'), 'API_KEY=\n');
    write(join(repo, '.claude', 'settings.json'), '{}\n');
    write(join(home, '.bashrc'), '# rc\n');
    write(join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-MATERIAL\n');
    write(join(repo, '.ralph', 'feature-sandbox', 'prd.json'), '{"userStories":[]}\n');
    write(join(repo, '.ralph', 'feature-sandbox', 'config.yaml'), 'guard:\n  enabled: true\n');
  });
  afterAll(() => {
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  it('passes the exit code through', async () => {
    expect((await sandboxed('exit 7')).code).toBe(7);
  });

  it('runs npm test, git commit, node and python one-liners, /tmp and reads of the tree', async () => {
    const result = await sandboxed(
      [
        'set -e',
        'npm test >/dev/null 2>&1',
        "node -e \"require('node:fs').writeFileSync('node.txt', 'n')\"",
        "python3 -c \"open('py.txt', 'w').write('p')\"",
        'echo t > /tmp/scratch && cat /tmp/scratch',
        'echo "$TMPDIR"',
        'cat src/index.js',
        'git add -A && git commit -qm inside && git log --oneline | wc -l',
        'cat .ralph/feature-sandbox/prd.json >/dev/null && echo prd-ok',
      ].join('\n'),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('t\n/tmp\nexport const answer = 42;\n1\nprd-ok\n');
    for (const file of ['tested.txt', 'node.txt', 'py.txt'])
      expect(existsSync(join(repo, file))).toBe(true);
    // /tmp inside is the run's own folder, gone with it.
    expect(existsSync('/tmp/scratch')).toBe(false);
  });

  it('refuses writes outside the work tree and to protected files inside it', async () => {
    const outside = join(dirname(repo), 'outside.txt');
    const targets = [
      outside,
      join(home, '.bashrc'),
      join(repo, '.git', 'config'),
      join(repo, '.git', 'hooks', 'pre-commit'),
      join(repo, '.claude', 'settings.json'),
      join(repo, '.claude', 'settings.local.json'),
      join(repo, '.ralph', 'feature-sandbox', 'config.yaml'),
    ];
    const gitConfig = readFileSync(join(repo, '.git', 'config'), 'utf8');
    const script = targets.map((path) => `echo pwned >> '${path}' || echo refused`).join('\n');
    const result = await sandboxed(script);
    expect(result.stdout).toBe('refused\n'.repeat(targets.length));
    expect(existsSync(outside)).toBe(false);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# rc\n');
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(join(repo, '.claude', 'settings.local.json'))).toBe(false);
    expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('hides ~/.ssh and the project .env files, but not .env.example', async () => {
    const result = await sandboxed(
      'cat ~/.ssh/id_rsa .env 2>&1; ls -A ~/.ssh; cat .env.example; grep -r sk-project . || echo none',
    );
    expect(result.stdout).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(result.stdout).not.toContain('sk-project-secret');
    expect(result.stdout).toContain('API_KEY=\n');
    expect(result.stdout).toContain('none\n');
  });

  it("removes credential variables, keeping the agent CLI's own", async () => {
    const result = await runRalph(
      [
        'sandbox',
        '--',
        'sh',
        '-c',
        'echo "gh=${GITHUB_TOKEN:-unset} api=${ANTHROPIC_API_KEY:-unset}"',
      ],
      repo,
      { ...env(), GITHUB_TOKEN: 'ghp-secret', ANTHROPIC_API_KEY: 'sk-ant' },
    );
    expect(result.stdout).toBe('gh=unset api=sk-ant\n');
  });

  it('cannot see or signal the ralph process that started it', async () => {
    const pidFile = join(repo, 'ralph.pid');
    const child = spawnForTest(
      process.execPath,
      [
        RALPH_BIN,
        'sandbox',
        '--',
        'sh',
        '-c',
        `while [ ! -s '${pidFile}' ]; do sleep 0.05; done; kill -9 "$(cat '${pidFile}')" 2>/dev/null; echo "kill=$?"`,
      ],
      { cwd: repo, env: env() },
    );
    writeFileSync(pidFile, String(child.pid));
    const result = await outcome(child);
    expect(result.stdout).toBe('kill=1\n');
    expect(result.code).toBe(0);
  });

  it('leaves nothing behind: a setsid child dies with the command', async () => {
    const started = join(repo, 'daemon-started');
    const escaped = join(repo, 'daemon-escaped');
    const result = await sandboxed(
      `(setsid sh -c "echo > '${started}'; sleep 1; echo > '${escaped}'" &)
       while [ ! -f '${started}' ]; do sleep 0.05; done`,
    );
    expect(result.code).toBe(0);
    expect(existsSync(started)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(escaped)).toBe(false);
  });

  it('asks for a command after --', async () => {
    const result = await runRalph(['sandbox', 'ls'], repo, env());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('needs a command after --');
  });
});
