import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from './harness.js';

const LOOP = '.ralph/feature-csv-export';

/** A repo whose loop directory holds `prd.json` with the given text (plus progress.txt). */
async function repoWithPrd(prdText: string): Promise<{ repo: string; home: string; prd: string }> {
  const { repo, home } = await tempRepo();
  await mkdir(join(repo, LOOP), { recursive: true });
  const prd = join(repo, LOOP, 'prd.json');
  await writeFile(prd, prdText);
  await writeFile(join(repo, LOOP, 'progress.txt'), '# Progress\n');
  return { repo, home, prd };
}

const VALID_STORY =
  '{"id":"STORY-001","title":"t","acceptanceCriteria":["a"],"priority":1,"passes":false}';

describe('bad input gets one clear error, exit 2, and the file is never rewritten', () => {
  const cases: { name: string; text: string; expect: RegExp[] }[] = [
    {
      name: 'invalid JSON',
      text: '{\n  "userStories": [\n    {"id": "STORY-001",}\n  ]\n}\n',
      expect: [/prd\.json:3:\d+/],
    },
    {
      name: 'passes as a string',
      text: `{\n  "userStories": [\n    {"id":"STORY-001","title":"t","acceptanceCriteria":[],"priority":1,\n     "passes": "true"}\n  ]\n}\n`,
      expect: [/userStories\[0\]\.passes/, /prd\.json:4/, /true or false/],
    },
    {
      name: 'priority of the wrong type',
      text: `{"userStories":[{"id":"STORY-001","title":"t","acceptanceCriteria":[],"priority":true,"passes":false}]}`,
      expect: [/userStories\[0\]\.priority/],
    },
    {
      name: 'duplicate ids',
      text: `{"userStories":[\n${VALID_STORY},\n${VALID_STORY}\n]}`,
      expect: [/STORY-001/, /duplicate/i, /prd\.json:3/],
    },
  ];

  for (const testCase of cases) {
    it(`status: ${testCase.name}`, async () => {
      const { repo, home, prd } = await repoWithPrd(testCase.text);
      const result = await runRalph(['status'], repo, testEnv(home));
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      for (const pattern of testCase.expect) expect(result.stderr).toMatch(pattern);
      expect(result.stderr).toContain('hint:');
      expect(await readFile(prd, 'utf8')).toBe(testCase.text);
    });

    it(`validate: ${testCase.name}`, async () => {
      const { repo, home, prd } = await repoWithPrd(testCase.text);
      const result = await runRalph(['validate'], repo, testEnv(home));
      expect(result.code).toBe(2);
      expect(result.stdout).toContain('✗ prd.json is invalid');
      for (const pattern of testCase.expect) expect(result.stdout).toMatch(pattern);
      expect(await readFile(prd, 'utf8')).toBe(testCase.text);
    });
  }

  it('status --json prints the error as {"error":{code,message,hint}}', async () => {
    const { repo, home } = await repoWithPrd('{ nope');
    const result = await runRalph(['status', '--json'], repo, testEnv(home));
    expect(result.code).toBe(2);
    const payload = JSON.parse(result.stdout) as {
      error: { code: string; message: string; hint: string };
    };
    expect(payload.error.code).toBe('INVALID_JSON');
    expect(payload.error.hint).toBeTruthy();
  });

  it('a config file with a YAML syntax error names the file, line and column', async () => {
    const { repo, home } = await repoWithPrd(`{"userStories":[${VALID_STORY}]}`);
    const config = join(repo, '.ralph', 'config.yaml');
    const text = 'maxIterations: 5\nprotectedBranches: [main\n';
    await writeFile(config, text);
    const result = await runRalph(['validate'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/config\.yaml:\d+:\d+/);
    expect(await readFile(config, 'utf8')).toBe(text);
  });

  it('a config value of the wrong type names the field and its line', async () => {
    const { repo, home } = await repoWithPrd(`{"userStories":[${VALID_STORY}]}`);
    await mkdir(join(home, '.config', 'ralph'), { recursive: true });
    const config = join(home, '.config', 'ralph', 'config.yaml');
    await writeFile(config, '# mine\nprofile: balanced\nmaxIterations: many\n');
    const result = await runRalph(['status'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('maxIterations');
    expect(result.stderr).toMatch(/config\.yaml:3/);
  });

  it('a bad RALPH_* environment value names the variable', async () => {
    const { repo, home } = await repoWithPrd(`{"userStories":[${VALID_STORY}]}`);
    const result = await runRalph(
      ['status'],
      repo,
      testEnv(home, { RALPH_MAX_ITERATIONS: 'lots' }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('RALPH_MAX_ITERATIONS');
  });

  it('an unknown config key is refused with the closest known key', async () => {
    const { repo, home } = await repoWithPrd(`{"userStories":[${VALID_STORY}]}`);
    await writeFile(join(repo, '.ralph', 'config.yaml'), 'maxIteration: 5\n');
    const result = await runRalph(['status'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('maxIteration');
    expect(result.stderr).toContain('maxIterations');
  });
});

describe('validate: failing checks', () => {
  it('detached HEAD fails the branch check', async () => {
    const { repo, home } = await tempRepo();
    execFileSync('git', [
      '-C',
      repo,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@e',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'x',
    ]);
    execFileSync('git', ['-C', repo, 'checkout', '-q', '--detach']);
    const result = await runRalph(['validate'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('✗ No branch: HEAD is detached');
  });

  it('a protected branch is a warning, not an error', async () => {
    const { repo, home } = await tempRepo('main');
    await runRalph(['init'], repo, testEnv(home));
    // Planned stories in place of the template's examples, which validate refuses.
    await writeFile(join(repo, '.ralph', 'main', 'prd.json'), `{"userStories":[${VALID_STORY}]}`);
    await rm(join(repo, '.ralph', 'main', 'spec.md'));
    const result = await runRalph(['validate'], repo, testEnv(home));
    expect(result.stdout).toContain("⚠ On protected branch 'main'");
    expect(result.code).toBe(0);
  });

  it('a missing loop directory points at ralph init', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['validate'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('✗ Loop directory not found: .ralph/feature-csv-export/');
    expect(result.stdout).toContain('ralph init');
  });

  it('a missing agent CLI fails with how to install it', async () => {
    const { repo, home } = await tempRepo();
    await runRalph(['init'], repo, testEnv(home));
    const env = testEnv(home, { RALPH_CLAUDE_BIN: join(repo, 'no-such-claude') });
    const result = await runRalph(['validate'], repo, env);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('✗ Claude Code not usable');
    expect(result.stdout).toContain('npm install -g @anthropic-ai/claude-code');
  });

  it('refuses to run nested inside a Claude Code session', async () => {
    const { repo, home } = await tempRepo();
    await runRalph(['init'], repo, testEnv(home));
    const result = await runRalph(['validate'], repo, testEnv(home, { CLAUDECODE: '1' }));
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('✗ Running inside a Claude Code session');
  });

  it('spec.md out of sync: a new story in spec.md and an orphaned completed story', async () => {
    const { repo, home } = await tempRepo();
    await runRalph(['init'], repo, testEnv(home));
    const prdPath = join(repo, LOOP, 'prd.json');
    const prd = JSON.parse(await readFile(prdPath, 'utf8')) as {
      userStories: { id: string; passes: boolean }[];
    };
    prd.userStories[1]!.id = 'STORY-009';
    prd.userStories[1]!.passes = true;
    await writeFile(prdPath, JSON.stringify(prd, null, 2));
    const result = await runRalph(['validate'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('✗ Sync check failed');
    expect(result.stdout).toMatch(/STORY-002 in spec\.md not found in prd\.json/);
    expect(result.stdout).toMatch(/STORY-009.*COMPLETED WORK WOULD BE LOST/);
  });
});

describe('command line', () => {
  it('an unknown option exits 2 with a suggestion', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['status', '--jsn'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--json');
  });

  it('an unknown command exits 2', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['stauts'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('status');
  });

  const COMMANDS = [
    'init',
    'run',
    'validate',
    'import',
    'archive',
    'status',
    'evidence',
    'memory',
    'templates',
    'setup',
    'loop',
    'stop-hook',
    'demo',
    'inspect',
    'list',
    'attach',
    'stop',
    'logs',
    'monitor',
    'guard',
    'verify',
    'debug',
    'sandbox',
    'amend',
    'sync',
  ];

  it('--help lists every command, and each command has its own help', async () => {
    const { repo, home } = await tempRepo();
    const top = await runRalph(['--help'], repo, testEnv(home));
    expect(top.code).toBe(0);
    const listed = [...top.stdout.matchAll(/^ {2}([a-z-]+) /gm)].map((match) => match[1] ?? '');
    expect(listed).toEqual(expect.arrayContaining(COMMANDS));
    // One screen: a line per command, wrapped for an 80-column terminal.
    const lines = top.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(60);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    for (const command of COMMANDS)
      expect(lines.filter((line) => line.startsWith(`  ${command} `))).toHaveLength(1);
    const helps = new Map<string, string>();
    for (const command of COMMANDS) {
      const help = await runRalph([command, '--help'], repo, testEnv(home));
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toContain(`Usage: ralph ${command}`);
      expect(help.stdout.length, command).toBeGreaterThan(100);
      for (const line of help.stdout.split('\n'))
        expect(Array.from(line).length, `${command}: ${line}`).toBeLessThanOrEqual(80);
      helps.set(command, help.stdout);
    }
    for (const command of [
      'init',
      'run',
      'validate',
      'status',
      'evidence',
      'attach',
      'stop',
      'logs',
      'monitor',
      'verify',
      'debug',
      'sandbox',
      'sync',
    ])
      expect(helps.get(command), command).toContain('[dir]');
  });

  it('--version prints the package version', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalph(['--version'], repo, testEnv(home));
    const pkg = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    expect(result.stdout.trim()).toBe(pkg.version);
    expect(result.code).toBe(0);
  });
});
