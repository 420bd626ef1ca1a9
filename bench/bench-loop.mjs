// Shared by the run benchmarks: a temp git repo with a loop directory (`ralph init`, then one
// open story the fake agent never finishes) and the fake `claude` pointed at a script folder.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** @returns {{ repo: string, dir: string, scripts: string, env: NodeJS.ProcessEnv }} */
export function makeBenchLoop({ root, name, env, bin, story }) {
  const base = join(root, name);
  const repo = join(base, 'repo');
  const scripts = join(base, 'fake-claude');
  mkdirSync(scripts, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'feature/bench', repo]);
  const loopEnv = { ...env, FAKE_CLAUDE_SCRIPT_DIR: scripts };
  execFileSync(process.execPath, [bin, 'init'], { cwd: repo, env: loopEnv, stdio: 'ignore' });
  const dir = join(repo, '.ralph/feature-bench');
  rmSync(join(dir, 'spec.md'));
  const userStory = {
    id: 'STORY-001',
    acceptanceCriteria: ['It stays open'],
    priority: 1,
    passes: false,
    notes: '',
    ...story,
  };
  const prd = { description: 'bench', createdAt: '2026-11-22T00:00:00Z', userStories: [userStory] };
  writeFileSync(join(dir, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
  return { repo, dir, scripts, env: loopEnv };
}
