import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeNeeding, tool } from '../../requirements.js';
import { runRalph, testEnv } from '../harness.js';

/**
 * The gaps issue 11 named in the first sandbox, each replayed through `ralph sandbox` (the same
 * sandbox `ralph run` gives the agent, from the same function): a fork bomb meets a process cap,
 * nested `.env` files and the guard's configured secrets are hidden, control files that do not
 * exist yet cannot be created, ralph's tokens are gone, and a dead run's temp folder is swept.
 */

let repo = '';
let home = '';
const env = (extra: Record<string, string> = {}) =>
  testEnv(home, { RALPH_GUARD_SENSITIVE_FILES: 'private-*.txt', ...extra });
const sandboxed = (script: string, extra: Record<string, string> = {}) =>
  runRalph(['sandbox', '--', 'sh', '-c', script], repo, env(extra));

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describeNeeding(tool('bwrap'), 'ralph sandbox: the gaps of the first sandbox', () => {
  beforeAll(() => {
    // Outside /tmp: inside, /tmp is the run's private folder.
    const root = realpathSync(mkdtempSync('/var/tmp/ralph-sandbox-gaps-'));
    repo = join(root, 'repo');
    home = join(root, 'home');
    execFileSync('git', ['init', '-q', '-b', 'feature/gaps', repo]);
    mkdirSync(home);
    write(join(repo, 'services', 'api', '.env.local'), 'NESTED=sk-nested-secret\n');
    write(join(repo, 'services', 'api', '.env.example'), 'NESTED=\n');
    write(join(repo, 'docs', 'private-notes.txt'), 'CONFIGURED-SECRET\n');
    write(join(repo, '.ralph', 'feature-gaps', 'prd.json'), '{"userStories":[]}\n');
  });
  afterAll(() => {
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  it('hides .env files in nested folders and the guard’s sensitiveFiles, not .env.example', async () => {
    const run = await sandboxed(
      'cat services/api/.env.local docs/private-notes.txt services/api/.env.example',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('sk-nested-secret');
    expect(run.stdout).not.toContain('CONFIGURED-SECRET');
    expect(run.stdout).toContain('NESTED=');
  });

  it('caps the number of processes: a fork bomb stops at the cap', async () => {
    const bomb = [
      'import os, time',
      'n = 0',
      'for _ in range(400):',
      '    try:',
      '        pid = os.fork()',
      '    except OSError:',
      '        break',
      '    if pid == 0:',
      '        time.sleep(5)',
      '        os._exit(0)',
      '    n += 1',
      'print(n)',
    ].join('\n');
    const run = await sandboxed(`python3 -c '${bomb}'`, { RALPH_SANDBOX_MAX_PROCESSES: '40' });
    expect(run.code, run.stderr).toBe(0);
    expect(Number(run.stdout.trim())).toBeLessThan(40);
  });

  it('keeps control files that do not exist yet from being created', async () => {
    const run = await sandboxed(
      [
        'echo \'{"disableAllHooks":true}\' > .claude/settings.local.json',
        'echo "exit 0" > .ralph/feature-gaps/hooks/pre-iteration.sh',
        'echo "x" > .ralph/logs/audit.jsonl',
        'true',
      ].join('; '),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(join(repo, '.claude', 'settings.local.json'))).toBe(false);
    expect(existsSync(join(repo, '.ralph', 'feature-gaps', 'hooks', 'pre-iteration.sh'))).toBe(
      false,
    );
    expect(existsSync(join(repo, '.ralph', 'logs', 'audit.jsonl'))).toBe(false);
  });

  it("removes ralph's tokens from the environment", async () => {
    const run = await sandboxed('env', { RALPH_MONITOR_TOKEN: 'monitor-secret' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('monitor-secret');
  });

  it('removes what a SIGKILLed run left in the temp folder', async () => {
    const dead = spawnSync('true').pid;
    const left = join(tmpdir(), `ralph-sandbox-${dead}-leftover`);
    mkdirSync(join(left, 'tmp'), { recursive: true });
    const run = await sandboxed('true');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(left)).toBe(false);
  });
});

/**
 * What the outside attack of the second sandbox got through, replayed the same way: as root the
 * command kept CAP_SYS_ADMIN and unmounted the hiding and read-only mounts; as anyone, renaming
 * .git or the loop folder and putting a copy in its place gave it a git config and hook scripts
 * of its own, which ran outside the sandbox later.
 */
describeNeeding(tool('bwrap'), 'ralph sandbox: what the second attack got through', () => {
  beforeAll(() => {
    const root = realpathSync(mkdtempSync('/var/tmp/ralph-sandbox-attack-'));
    repo = join(root, 'repo');
    home = join(root, 'home');
    execFileSync('git', ['init', '-q', '-b', 'feature/gaps', repo]);
    mkdirSync(home);
    write(join(repo, '.env'), 'TOP=sk-top-secret\n');
    write(join(repo, '.ralph', 'feature-gaps', 'prd.json'), '{"userStories":[]}\n');
    write(join(repo, '.ralph', 'feature-gaps', 'config.yaml'), 'maxIterations: 3\n');
  });
  afterAll(() => {
    rmSync(dirname(repo), { recursive: true, force: true });
  });

  it('keeps no capability, so even root cannot unmount what hides or protects', async () => {
    const run = await sandboxed(
      'grep CapEff /proc/self/status; umount -l .env 2>/dev/null; cat .env; ' +
        'umount -l .git/config 2>/dev/null; echo "[x]" >> .git/config 2>/dev/null || echo ro',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('CapEff:\t0000000000000000');
    expect(run.stdout).not.toContain('sk-top-secret');
    expect(run.stdout).toContain('ro');
  });

  it('refuses to rename .git, the loop folder or .ralph (a copy put in their place)', async () => {
    const run = await sandboxed(
      'for d in .git .ralph/feature-gaps .ralph; do mv "$d" "$d-old" 2>/dev/null && echo "moved $d"; done; echo done',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('moved');
    expect(run.stdout).toContain('done');
    expect(existsSync(join(repo, '.git', 'HEAD'))).toBe(true);
    expect(existsSync(join(repo, '.ralph', 'feature-gaps', 'config.yaml'))).toBe(true);
  });

  it('removes personal tokens, keys and connection strings from the environment', async () => {
    const run = await sandboxed('env', {
      GITHUB_PAT: 'pat-secret',
      DATABASE_URL: 'postgres://u:db-secret@h/d',
      OPENAI_KEY: 'key-secret',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/pat-secret|db-secret|key-secret/);
  });
});
