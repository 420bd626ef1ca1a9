import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, tempRepo, testEnv } from '../harness.js';
import { hookInput, loopFiles, runHookCommand, runRalphInput } from './helpers.js';

/** The session-loop commands of the built binary, as a user (or Claude Code) runs them. */

interface ListJson {
  loops: { id: string; status: string; sessionId: string | null; iteration: number }[];
}

describe('ralph setup', () => {
  it('--stop-hook is idempotent and writes a command that works from a shell', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    const first = await runRalph(['setup', '--stop-hook'], repo, env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Added the Stop hook/);
    const path = join(repo, '.claude', 'settings.local.json');
    const text = await readFile(path, 'utf8');
    const second = await runRalph(['setup', '--stop-hook'], repo, env);
    expect(second.stdout).toMatch(/already in/);
    expect(await readFile(path, 'utf8')).toBe(text);

    const settings = JSON.parse(text) as {
      hooks: { Stop: { hooks: { command: string }[] }[] };
    };
    const command = settings.hooks.Stop[0]?.hooks[0]?.command ?? '';
    // No ralph on this test's PATH: the absolute form of this installation.
    expect(command).toBe(
      `${process.execPath} ${join(import.meta.dirname, '../../../dist/cli/bin.cjs')} stop-hook`,
    );

    await runRalph(['loop', 'start', 'Keep going', '--completion-promise', 'DONE'], repo, env);
    const hook = await runHookCommand(
      command,
      repo,
      { PATH: '/nonexistent', HOME: home },
      hookInput(repo, 's1'),
    );
    expect(hook.code).toBe(0);
    expect(JSON.parse(hook.stdout)).toMatchObject({ decision: 'block', reason: 'Keep going' });
  });

  it('--stop-hook never rewrites a settings file it cannot parse', async () => {
    const { repo, home } = await tempRepo();
    await mkdir(join(repo, '.claude'));
    const path = join(repo, '.claude', 'settings.local.json');
    await writeFile(path, '{ "permissions": { ');
    const result = await runRalph(['setup', '--stop-hook'], repo, testEnv(home));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toMatch(/not valid JSON/);
    expect(await readFile(path, 'utf8')).toBe('{ "permissions": { ');
  });

  it('--plugin writes the plugin once; both flags are a usage error', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    const first = await runRalph(['setup', '--plugin'], repo, env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/created +hooks\/hooks\.json/);
    const second = await runRalph(['setup', '--plugin'], repo, env);
    expect(second.stdout).toMatch(/up to date/);
    const hooks = await readFile(join(repo, '.claude/ralph-plugin/hooks/hooks.json'), 'utf8');
    expect(hooks).toMatch(/stop-hook/);
    // A plain `ralph setup` installs the planning slash commands (test/e2e/plan/), no hook.
    expect((await runRalph(['setup', '--plugin', '--stop-hook'], repo, env)).code).toBe(2);
  });
});

describe('ralph loop', () => {
  it('start, list, a claim by the hook, cancel', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    const started = await runRalph(
      [
        'loop',
        'start',
        'Make',
        'the',
        'tests',
        'pass',
        '--max-iterations',
        '5',
        '--completion-promise',
        'DONE',
        '--json',
      ],
      repo,
      env,
    );
    expect(started.code).toBe(0);
    const { id, hookInstalled } = JSON.parse(started.stdout) as {
      id: string;
      hookInstalled: boolean;
    };
    expect(hookInstalled).toBe(false);
    const list = async () =>
      JSON.parse((await runRalph(['loop', 'list', '--json'], repo, env)).stdout) as ListJson;
    expect((await list()).loops).toMatchObject([
      { id, status: 'UNCLAIMED', sessionId: null, iteration: 1 },
    ]);

    const hook = await runRalphInput(['stop-hook'], repo, env, hookInput(repo, 'session-1'));
    expect(JSON.parse(hook.stdout)).toMatchObject({
      decision: 'block',
      reason: 'Make the tests pass',
    });
    expect((await list()).loops).toMatchObject([
      { id, status: 'ACTIVE', sessionId: 'session-1', iteration: 2 },
    ]);
    const text = await runRalph(['loop', 'list'], repo, env);
    expect(text.stdout).toMatch(new RegExp(`${id} +ACTIVE +session- +2/5 +DONE`));

    const cancel = await runRalph(['loop', 'cancel', id], repo, env);
    expect(cancel.stdout).toMatch(`Cancelled ${id}`);
    expect((await list()).loops).toEqual([]);
    expect(await readFile(join(repo, `.claude/ralph-journal-${id}.md`), 'utf8')).toMatch(
      /Loop cancelled/,
    );
  });

  it('stores a prompt from stdin byte for byte and feeds it back unchanged', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    const prompt = `Title\n---\nloop_id: "xxxxxxxx"\niteration: 99\n---\n"quotes" 'single' $(echo no) \`tick\` ünï 🚀\r\n\n`;
    const started = await runRalphInput(
      ['loop', 'start', '--prompt-file', '-', '--completion-promise', 'it\'s "*" done'],
      repo,
      env,
      prompt,
    );
    expect(started.code).toBe(0);
    const hook = await runRalphInput(['stop-hook'], repo, env, hookInput(repo, 's1'));
    const output = JSON.parse(hook.stdout) as { reason: string; systemMessage: string };
    expect(output.reason).toBe(prompt);
    expect(output.systemMessage).toContain('<promise>it\'s "*" done</promise>');
    const done = await runRalphInput(
      ['stop-hook'],
      repo,
      env,
      hookInput(repo, 's1', { last_assistant_message: '<promise> it\'s "*"  done </promise>' }),
    );
    expect(JSON.parse(done.stdout)).not.toHaveProperty('decision');
    expect(await loopFiles(repo)).toEqual([]);
  });

  it('cancel without an id asks first; --yes does not', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    for (const prompt of ['one', 'two']) await runRalph(['loop', 'start', prompt], repo, env);
    const declined = await runRalphInput(['loop', 'cancel'], repo, env, 'n\n');
    expect(declined.code).toBe(1);
    expect(declined.stdout).toMatch(/Cancel all 2 loops/);
    expect(await loopFiles(repo)).toHaveLength(2);
    const eof = await runRalphInput(['loop', 'cancel'], repo, env, '');
    expect(eof.code).toBe(1);
    const accepted = await runRalphInput(['loop', 'cancel'], repo, env, 'y\n');
    expect(accepted.code).toBe(0);
    expect(await loopFiles(repo)).toEqual([]);
    await runRalph(['loop', 'start', 'three'], repo, env);
    expect((await runRalph(['loop', 'cancel', '--yes'], repo, env)).code).toBe(0);
    expect(await loopFiles(repo)).toEqual([]);
    expect((await runRalph(['loop', 'cancel', 'nope1234'], repo, env)).code).toBe(2);
  });

  it('wizard works with piped answers', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    const answers = [
      'Add a /health endpoint',
      'GET /health returns 200',
      'npm test passes',
      '',
      '12',
      'HEALTHY',
      'y',
      '',
    ].join('\n');
    const result = await runRalphInput(['loop', 'wizard'], repo, env, answers);
    expect(result.stderr).not.toMatch(/error/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Started ralph loop [a-z0-9]{8}/);
    const [file] = await loopFiles(repo);
    const text = await readFile(join(repo, '.claude', file ?? ''), 'utf8');
    expect(text).toMatch(/max_iterations: 12/);
    expect(text).toMatch(/completion_promise: "HEALTHY"/);
    expect(text).toMatch(/- GET \/health returns 200\n- npm test passes/);
    expect(text).toMatch(/output <promise>HEALTHY<\/promise>/);

    const aborted = await runRalphInput(['loop', 'wizard'], repo, env, 'only a task\n');
    expect(aborted.code).toBe(1);
    expect(aborted.stderr).toMatch(/no loop was started/);
  });

  it('help texts exist and bad input is a usage error', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    expect((await runRalph(['--help'], repo, env)).stdout).toMatch(
      /loop[\s\S]*setup[\s\S]*stop-hook/,
    );
    expect((await runRalph(['loop', '--help'], repo, env)).stdout).toMatch(
      /start[\s\S]*wizard[\s\S]*list[\s\S]*cancel/,
    );
    expect((await runRalph(['loop', 'help'], repo, env)).stdout).toMatch(
      /backstop of 500 iterations/,
    );
    expect((await runRalph(['stop-hook', '--help'], repo, env)).stdout).toMatch(/Stop hook/);
    expect((await runRalph(['loop', 'start'], repo, env)).code).toBe(2);
    expect(
      (await runRalph(['loop', 'start', 'p', '--max-iterations', 'ten'], repo, env)).code,
    ).toBe(2);
    expect((await runRalph(['loop', 'bogus'], repo, env)).code).toBe(2);
  });
});

describe('ralph stop-hook (process)', () => {
  it('without loops: exit 0, prints nothing', async () => {
    const { repo, home } = await tempRepo();
    const result = await runRalphInput(['stop-hook'], repo, testEnv(home), hookInput(repo, 's1'));
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('finds the loops from a subfolder of the repository', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    await runRalph(['loop', 'start', 'p'], repo, env);
    await mkdir(join(repo, 'src', 'deep'), { recursive: true });
    const sub = join(repo, 'src', 'deep');
    const result = await runRalphInput(['stop-hook'], sub, env, hookInput(sub, 's1'));
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: 'block', reason: 'p' });
  });

  it('a corrupt state file: exit 0, explained on stderr, removed', async () => {
    const { repo, home } = await tempRepo();
    await mkdir(join(repo, '.claude'));
    await writeFile(
      join(repo, '.claude', 'ralph-loop-abcd1234.local.md'),
      '---\niteration: x\n---\np',
    );
    const result = await runRalphInput(['stop-hook'], repo, testEnv(home), hookInput(repo, 's1'));
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/corrupt/);
    expect(JSON.parse(result.stdout)).not.toHaveProperty('decision');
    expect(await loopFiles(repo)).toEqual([]);
  });

  it('two sessions stopping at the same moment claim two different loops', async () => {
    const { repo, home } = await tempRepo();
    const env = testEnv(home);
    await runRalph(['loop', 'start', 'first'], repo, env);
    await runRalph(['loop', 'start', 'second'], repo, env);
    const results = await Promise.all(
      ['A', 'B'].map((session) =>
        runRalphInput(['stop-hook'], repo, env, hookInput(repo, session)),
      ),
    );
    const reasons = results.map(
      (result) => (JSON.parse(result.stdout) as { reason: string }).reason,
    );
    expect(reasons.sort()).toEqual(['first', 'second']);
    const list = JSON.parse(
      (await runRalph(['loop', 'list', '--json'], repo, env)).stdout,
    ) as ListJson;
    expect(list.loops.map((loop) => loop.sessionId).sort()).toEqual(['A', 'B']);
    expect(list.loops.map((loop) => loop.iteration)).toEqual([2, 2]);
  });
});
