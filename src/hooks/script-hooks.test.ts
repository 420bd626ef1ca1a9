import { mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookPoint } from '../state/paths.js';
import { isProcessAlive } from '../state/process-identity.js';
import { scriptHooks } from './script-hooks.js';

/** Real bash scripts in a temp loop directory (design.md §2: DIR/hooks/<point>.sh). */

async function setup(
  scripts: Partial<Record<HookPoint, string>>,
  timeoutMs = 10_000,
  urgentMs = 5000,
) {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-hooks-')));
  const loopDir = join(root, 'loop');
  await mkdir(join(loopDir, 'hooks'), { recursive: true });
  for (const [point, body] of Object.entries(scripts))
    await writeFile(join(loopDir, 'hooks', `${point}.sh`), body); // not executable: bash runs it
  const output: string[] = [];
  const hooks = scriptHooks({
    loopDir,
    cwd: root,
    env: { PATH: process.env.PATH, FROM_RALPH: 'yes' },
    timeoutMs,
    urgentMs,
    output: (point, line) => output.push(`${point}: ${line}`),
  });
  return { root, hooks, output };
}

describe('scriptHooks', () => {
  it('does nothing for a point without a script', async () => {
    const { hooks, output } = await setup({});
    expect(await hooks.run('pre_run', {}, false)).toBeUndefined();
    expect(output).toEqual([]);
  });

  it('runs the script in the repository with the variables, and passes its output on', async () => {
    const { root, hooks, output } = await setup({
      post_iteration:
        'echo "iteration $RALPH_ITERATION of $FROM_RALPH"\npwd > where.txt\necho "to stderr" >&2\n',
    });
    expect(await hooks.run('post_iteration', { RALPH_ITERATION: '4' }, false)).toBeUndefined();
    expect(output).toEqual(['post_iteration: iteration 4 of yes', 'post_iteration: to stderr']);
    expect((await readFile(join(root, 'where.txt'), 'utf8')).trim()).toBe(root);
  });

  it('says how a failing hook failed, with its last error line', async () => {
    const { hooks } = await setup({ on_error: 'echo "paging failed: no token" >&2\nexit 3\n' });
    expect(await hooks.run('on_error', {}, false)).toBe('exit code 3: paging failed: no token');
  });

  it('kills a hook that runs past its limit, children included', async () => {
    const { root, hooks } = await setup(
      { pre_run: 'sleep 30 &\necho $! > child.pid\nsleep 30\n' },
      500,
    );
    expect(await hooks.run('pre_run', {}, false)).toBe('killed after 0.5 s (hooks.timeoutSeconds)');
    const child = Number(await readFile(join(root, 'child.pid'), 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isProcessAlive(child)).toBe(false);
  });

  it('gives an urgent hook (the run is being interrupted) its own limit at most', async () => {
    const { hooks } = await setup({ post_run: 'sleep 30\n' }, 300);
    const started = Date.now();
    expect(await hooks.run('post_run', {}, true)).toContain('killed after');
    expect(Date.now() - started).toBeLessThan(10_000); // not sleep's 30 s
  });

  it('gives a hook still running when the run is interrupted a moment, then stops it', async () => {
    const { hooks } = await setup({ pre_iteration: 'sleep 30\n' }, 0, 300);
    const controller = new AbortController();
    const started = Date.now();
    const running = hooks.run('pre_iteration', {}, false, controller.signal);
    setTimeout(() => {
      controller.abort();
    }, 100);
    expect(await running).toBe('stopped 0.3 s after the run was interrupted');
    expect(Date.now() - started).toBeLessThan(10_000); // not sleep's 30 s
  });

  it('runs <point>.sh, then <point>.d/*.sh in name order; a failing one does not stop the rest', async () => {
    const { root, hooks, output } = await setup({ post_iteration: 'echo main\n' });
    const folder = join(root, 'loop', 'hooks', 'post_iteration.d');
    await mkdir(folder);
    await writeFile(join(folder, '20-second.sh'), 'echo "second $RALPH_ITERATION"\n');
    await writeFile(join(folder, '10-first.sh'), 'echo first\necho "no disk" >&2\nexit 2\n');
    await writeFile(join(folder, 'README.md'), 'echo never\n'); // not *.sh: not run
    await writeFile(join(folder, '.hidden.sh'), 'echo never\n');
    expect(await hooks.run('post_iteration', { RALPH_ITERATION: '7' }, false)).toBe(
      'post_iteration.d/10-first.sh: exit code 2: no disk',
    );
    expect(output).toEqual([
      'post_iteration: main',
      'post_iteration: first',
      'post_iteration: no disk',
      'post_iteration: second 7',
    ]);
  });

  it('runs a <point>.d/ folder without a <point>.sh, and names every failure', async () => {
    const { root, hooks } = await setup({});
    const folder = join(root, 'loop', 'hooks', 'on_error.d');
    await mkdir(folder);
    await writeFile(join(folder, 'a.sh'), 'exit 1\n');
    await writeFile(join(folder, 'b.sh'), 'exit 3\n');
    expect(await hooks.run('on_error', {}, false)).toBe(
      'on_error.d/a.sh: exit code 1; on_error.d/b.sh: exit code 3',
    );
  });
});
