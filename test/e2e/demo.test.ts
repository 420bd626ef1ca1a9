import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, testEnv } from './harness.js';

describe('ralph demo', () => {
  it('runs the whole loop on the sample project: three stories, three commits, COMPLETE', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-demo-e2e-')));
    const project = join(root, 'project');
    const result = await runRalph(
      ['demo', '--dir', project, '--pause', '0'],
      root,
      testEnv(join(root)),
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('COMPLETE — every story passes');

    const log = execFileSync('git', ['log', '--format=%s'], { cwd: project, encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(log).toEqual([
      "ralph demo: the run's progress and evidence",
      'STORY-003: implemented with tests',
      'STORY-002: implemented with tests',
      'STORY-001: implemented with tests',
      'Sample project for ralph demo',
    ]);
    // The sample project's own tests pass with what the scripted agent wrote.
    execFileSync(process.execPath, ['--test'], { cwd: project, stdio: 'ignore' });

    const loop = join(project, '.ralph', 'demo');
    const status = JSON.parse(await readFile(join(loop, 'status.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({
      state: 'COMPLETE',
      iteration: 3,
      storiesPassing: 3,
      storiesTotal: 3,
    });
    const inspect = await runRalph(
      ['inspect', join(loop, 'logs', 'iteration-3-attempt-1.jsonl'), '--json'],
      root,
      testEnv(root),
    );
    expect(JSON.parse(inspect.stdout)).toMatchObject({
      completionSignal: 'COMPLETE',
      resultLine: true,
    });
    // ralph's run state stays out of the commits the agent made.
    const tracked = execFileSync('git', ['ls-files', '.ralph'], { cwd: project, encoding: 'utf8' });
    expect(tracked).toContain('prd.json');
    expect(tracked).not.toContain('status.json');
    expect(tracked).not.toContain('safety.json');
    // A new user's first look at the demo repository: nothing left uncommitted.
    const dirty = execFileSync('git', ['status', '--porcelain'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(dirty).toBe('');
  }, 30_000);

  it('refuses a folder that is not empty', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-demo-e2e-')));
    const result = await runRalph(['demo', '--dir', root], root, testEnv(root));
    expect(result.code).toBe(0);
    const again = await runRalph(['demo', '--dir', root], root, testEnv(root));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not empty');
  }, 30_000);
});
