import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentProbe, AgentProbeResult } from '../agents/types.js';
import { runPreflight, type PreflightReport } from './preflight.js';

const FOUND: AgentProbeResult = {
  agent: 'claude',
  command: 'claude',
  found: true,
  version: '2.1.330',
  problem: undefined,
};

function agent(result: AgentProbeResult = FOUND): AgentProbe {
  return { probe: () => Promise.resolve(result) };
}

const SPEC = `# Feature

## Problem Statement
Why.

## Success Criteria
- [ ] It works

## User Stories

### STORY-001: First
**Acceptance Criteria:**
- [ ] a

## Out of Scope
- nothing
`;

const PRD = {
  description: 'x',
  createdAt: '2026-01-01T00:00:00Z',
  userStories: [
    { id: 'STORY-001', title: 'First', acceptanceCriteria: ['a'], priority: 1, passes: false },
  ],
};

/** A git repo on feature/x whose loop directory holds the given files (undefined = absent). */
async function loop(files: Partial<Record<'prd.json' | 'spec.md' | 'progress.txt', string>>) {
  const repo = await realpath(await mkdtemp(join(tmpdir(), 'ralph-preflight-')));
  execFileSync('git', ['init', '-q', '-b', 'feature/x', repo]);
  const dir = join(repo, '.ralph', 'feature-x');
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return { repo, dir };
}

const complete = {
  'prd.json': JSON.stringify(PRD, null, 2),
  'spec.md': SPEC,
  'progress.txt': '',
};

async function preflight(
  repo: string,
  options: {
    env?: Record<string, string>;
    probe?: AgentProbe;
    dir?: string;
    protectedBranches?: string[];
    sandbox?: { bwrapFound: boolean };
    user?: { uid: number | undefined; skipPermissions: boolean };
  } = {},
): Promise<PreflightReport> {
  return runPreflight({
    cwd: repo,
    dir: options.dir,
    env: options.env ?? {},
    protectedBranches: options.protectedBranches ?? ['main', 'master', 'develop'],
    agent: options.probe ?? agent(),
    sandbox: options.sandbox,
    user: options.user,
  });
}

function statuses(report: PreflightReport, name: string): string[] {
  return report.checks.filter((check) => check.name === name).map((check) => check.status);
}

describe('runPreflight', () => {
  it('passes every check on a complete loop directory', async () => {
    const { repo, dir } = await loop(complete);
    const report = await preflight(repo);
    expect(report.ok).toBe(true);
    expect(report.loopDir).toBe(dir);
    expect(report.branch).toBe('feature/x');
    expect(report.checks.every((check) => check.status === 'pass')).toBe(true);
    expect(report.taskList?.taskList.stories).toHaveLength(1);
  });

  it('root without IS_SANDBOX: fails with the skip flag, warns without it, silent otherwise', async () => {
    const { repo } = await loop(complete);
    const root = (skipPermissions: boolean, env: Record<string, string> = {}) =>
      preflight(repo, { env, user: { uid: 0, skipPermissions } });
    const failing = await root(true);
    expect(statuses(failing, 'root')).toEqual(['fail']);
    expect(failing.ok).toBe(false);
    expect(failing.checks.find((check) => check.name === 'root')?.hint).toContain('IS_SANDBOX=1');
    const warned = await root(false);
    expect(statuses(warned, 'root')).toEqual(['warn']);
    expect(warned.ok).toBe(true);
    expect(statuses(await root(true, { IS_SANDBOX: '1' }), 'root')).toEqual([]);
    const user = await preflight(repo, { user: { uid: 1000, skipPermissions: true } });
    expect(statuses(user, 'root')).toEqual([]);
  });

  it('branch: not a git repository fails', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'ralph-nogit-')));
    const report = await preflight(dir, { dir: '.' });
    expect(statuses(report, 'branch')).toEqual(['fail']);
    expect(report.ok).toBe(false);
  });

  it('protected branch: warns on a configured protected branch, passes otherwise', async () => {
    const { repo } = await loop(complete);
    expect(
      statuses(await preflight(repo, { protectedBranches: ['feature/x'] }), 'protected-branch'),
    ).toEqual(['warn']);
    expect(statuses(await preflight(repo), 'protected-branch')).toEqual([]);
  });

  it('files: a missing task list fails; missing progress.txt and spec.md warn', async () => {
    const noTaskList = await loop({ 'spec.md': SPEC, 'progress.txt': '' });
    const failing = await preflight(noTaskList.repo);
    expect(statuses(failing, 'files')).toEqual(['fail']);
    expect(failing.ok).toBe(false);

    const onlyPrd = await loop({ 'prd.json': complete['prd.json'] });
    const warned = await preflight(onlyPrd.repo);
    expect(statuses(warned, 'files')).toEqual(['pass', 'warn', 'warn']);
    expect(statuses(warned, 'sync')).toEqual([]);
    expect(warned.ok).toBe(true);
  });

  it('hooks: lists the hook scripts and warns about a file no point runs', async () => {
    const { repo, dir } = await loop(complete);
    expect(statuses(await preflight(repo), 'hooks')).toEqual([]); // no hooks/ folder
    await mkdir(join(dir, 'hooks'));
    await writeFile(join(dir, 'hooks', 'pre_run.sh'), 'echo hi\n');
    await writeFile(join(dir, 'hooks', 'post-iteration.sh'), 'echo typo\n');
    const report = await preflight(repo);
    const hooks = report.checks.filter((check) => check.name === 'hooks');
    expect(hooks.map((check) => [check.status, check.message])).toEqual([
      ['pass', 'Hooks: pre_run'],
      ['warn', 'Not a hook point, never run: hooks/post-iteration.sh'],
    ]);
    expect(hooks[1]?.hint).toContain('post_iteration.sh');
    expect(report.ok).toBe(true);
  });

  it('hooks: counts the scripts of <point>.d/ folders and warns about what they never run', async () => {
    const { repo, dir } = await loop(complete);
    await mkdir(join(dir, 'hooks', 'post_iteration.d'), { recursive: true });
    await mkdir(join(dir, 'hooks', 'pre-run.d'));
    // A hook's own files (a template's hooks/visual-diff/): not a typo, no warning.
    await mkdir(join(dir, 'hooks', 'visual-diff'));
    await writeFile(join(dir, 'hooks', 'visual-diff', 'diff.mjs'), '// a hook helper\n');
    await writeFile(join(dir, 'hooks', 'post_iteration.sh'), 'echo a\n');
    await writeFile(join(dir, 'hooks', 'post_iteration.d', '10-b.sh'), 'echo b\n');
    await writeFile(join(dir, 'hooks', 'post_iteration.d', 'notes.txt'), 'not a hook\n');
    const hooks = (await preflight(repo)).checks.filter((check) => check.name === 'hooks');
    expect(hooks.map((check) => [check.status, check.message])).toEqual([
      ['pass', 'Hooks: post_iteration (2 scripts)'],
      ['warn', 'Not a hook point, never run: hooks/post_iteration.d/notes.txt, hooks/pre-run.d/'],
    ]);
  });

  it('task list: a schema error fails with the location and hint', async () => {
    const bad = JSON.stringify(
      { userStories: [{ ...PRD.userStories[0], passes: 'yes' }] },
      null,
      2,
    );
    const { repo } = await loop({ ...complete, 'prd.json': bad });
    const report = await preflight(repo);
    const check = report.checks.find((each) => each.name === 'task-list');
    expect(check?.status).toBe('fail');
    expect(check?.details.join('\n')).toMatch(
      /prd\.json:\d+:\d+ \(field userStories\[0\]\.passes\)/,
    );
    expect(check?.hint).toBeTruthy();
    expect(report.taskList).toBeUndefined();
  });

  it('task list: invalid JSON names its place once', async () => {
    const { repo, dir } = await loop({ ...complete, 'prd.json': '{"userStories": [ }' });
    const report = await preflight(repo);
    const [detail] = report.checks.find((each) => each.name === 'task-list')?.details ?? [];
    const place = `${dir}/prd.json:1:19`;
    expect(detail).toBe(`${place}: invalid JSON: unexpected character '}'; expected a value`);
  });

  it('spec structure: no User Stories section fails; no Out of Scope warns', async () => {
    const noStories = await loop({ ...complete, 'spec.md': '# F\n\n## Problem Statement\nx\n' });
    expect(statuses(await preflight(noStories.repo), 'spec')).toContain('fail');
    const noScope = await loop({
      ...complete,
      'spec.md': SPEC.replace(/## Out of Scope[\s\S]*/, ''),
    });
    const report = await preflight(noScope.repo);
    expect(statuses(report, 'spec')).toEqual(['warn']);
    expect(report.ok).toBe(true);
  });

  it('sync: changed acceptance criteria fail; an open orphan only warns', async () => {
    const changed = await loop({ ...complete, 'spec.md': SPEC.replace('- [ ] a', '- [ ] b') });
    const failing = await preflight(changed.repo);
    expect(statuses(failing, 'sync')).toEqual(['fail']);
    expect(failing.checks.find((check) => check.name === 'sync')?.details.join('\n')).toContain(
      'STORY-001',
    );

    const orphanPrd = {
      ...PRD,
      userStories: [...PRD.userStories, { ...PRD.userStories[0], id: 'STORY-002', passes: false }],
    };
    const orphan = await loop({ ...complete, 'prd.json': JSON.stringify(orphanPrd) });
    const report = await preflight(orphan.repo);
    expect(statuses(report, 'sync')).toEqual(['warn', 'pass']);
    expect(report.ok).toBe(true);
  });

  it('sync: duplicate amendment ids in spec.md fail', async () => {
    const amended = `${SPEC}\n## Amendments\n\n### AMD-001: One (2026-01-01T00:00:00Z)\n\n### AMD-001: Again (2026-01-02T00:00:00Z)\n`;
    const { repo } = await loop({ ...complete, 'spec.md': amended });
    const report = await preflight(repo);
    const sync = report.checks.find((check) => check.name === 'sync' && check.status === 'fail');
    expect(sync?.details.join('\n')).toContain('AMD-001');
  });

  it('agent: a missing CLI fails with an install hint', async () => {
    const { repo } = await loop(complete);
    const report = await preflight(repo, {
      probe: agent({ ...FOUND, found: false, version: undefined, problem: 'claude not found' }),
    });
    const check = report.checks.find((each) => each.name === 'agent');
    expect(check?.status).toBe('fail');
    expect(check?.message).toContain('claude not found');
    expect(check?.hint).toContain('RALPH_CLAUDE_BIN');
  });

  it('sandbox: checked only when on; a missing bubblewrap fails with the install hint', async () => {
    const { repo } = await loop(complete);
    expect(statuses(await preflight(repo), 'sandbox')).toEqual([]);
    expect(statuses(await preflight(repo, { sandbox: { bwrapFound: true } }), 'sandbox')).toEqual([
      'pass',
    ]);
    const report = await preflight(repo, { sandbox: { bwrapFound: false } });
    const check = report.checks.find((each) => each.name === 'sandbox');
    expect(report.ok).toBe(false);
    expect(check?.status).toBe('fail');
    expect(check?.hint).toContain('apt-get install bubblewrap');
  });

  it('mcp: an open story naming an MCP server the agent cannot find fails; passing stories are skipped', async () => {
    const stories = [
      { ...PRD.userStories[0], mcpServers: ['nope'] },
      { ...PRD.userStories[0], id: 'STORY-002', passes: true, mcpServers: ['gone'] },
      { ...PRD.userStories[0], id: 'STORY-003', mcpServers: ['playwright'] },
    ];
    const { repo } = await loop({ 'prd.json': JSON.stringify({ ...PRD, userStories: stories }) });
    const probe: AgentProbe = {
      ...agent(),
      mcpServersProblem: (names) =>
        names.includes('playwright') ? undefined : `"${names.join(', ')}" not configured`,
    };
    const report = await preflight(repo, { probe });
    const check = report.checks.find((each) => each.name === 'mcp');
    expect(check).toMatchObject({ status: 'fail', details: ['STORY-001: "nope" not configured'] });
    expect(report.ok).toBe(false);
  });

  it('nested: CLAUDECODE set fails; empty or unset passes', async () => {
    const { repo } = await loop(complete);
    expect(statuses(await preflight(repo, { env: { CLAUDECODE: '1' } }), 'nested')).toEqual([
      'fail',
    ]);
    expect(statuses(await preflight(repo, { env: { CLAUDECODE: '' } }), 'nested')).toEqual([]);
  });
});
