import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { FAKE_BIN_DIR, planStories, RALPH_BIN, runRalph, tempRepo, testEnv } from '../harness.js';
import { waitFor } from '../run/fake-loop.js';
import { describeNeeding, tool } from '../../requirements.js';

const TMUX = tool('tmux', ['-V']);
const servers: string[] = [];
afterEach(() => {
  for (const dir of servers.splice(0)) {
    spawnSync('tmux', ['kill-server'], { env: { ...process.env, TMUX_TMPDIR: dir } });
  }
});

/**
 * `ralph run --monitor` from a pane of a tmux session no client shows (a detached session):
 * tmux's "no current client" was all a person got. The loop's session exists either way.
 */
describeNeeding(TMUX, 'run --monitor inside a tmux server without a client', () => {
  it('says where the loop runs and how to attach', async () => {
    const { repo, home } = await tempRepo();
    expect((await runRalph(['init'], repo, testEnv(home))).code).toBe(0);
    await planStories(join(repo, '.ralph/feature-csv-export'));
    const dir = await mkdtemp(join(tmpdir(), 'ralph-tmux-'));
    servers.push(dir);
    const env = { ...process.env, TMUX_TMPDIR: dir, TERM: 'xterm-256color' };
    const tmux = (...args: string[]) => execFileSync('tmux', args, { env, encoding: 'utf8' });
    const command = `HOME=${home} PATH=${FAKE_BIN_DIR}:$PATH ${process.execPath} ${RALPH_BIN} run --monitor; echo RALPH-EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-s', 'outer', '-x', '160', '-y', '40', '-c', repo, command);
    const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'outer');
    await waitFor(
      'ralph to finish in the outer pane',
      () => screen().includes('RALPH-EXIT='),
      20_000,
    );
    const shown = screen();
    expect(shown).toContain('RALPH-EXIT=0');
    expect(shown).toContain('tmux attach -t ralph-feature-csv-export');
    expect(tmux('ls')).toContain('ralph-feature-csv-export');
  }, 40_000);
});
