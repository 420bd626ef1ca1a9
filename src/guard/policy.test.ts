import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loopControlPaths, loopPaths, projectControlPaths, projectPaths } from '../state/paths.js';
import { judgeToolCall } from './decide.js';
import { resolvePolicy } from './policy.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-policy-')));
const project = join(root, 'project');
const loopDir = join(project, '.ralph', 'feature');
mkdirSync(loopDir, { recursive: true });
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const policy = resolvePolicy({
  projectRoot: project,
  homeDir: join(root, 'home'),
  loopDir,
  unattended: true,
});
const write = (file: string) =>
  judgeToolCall(
    { toolName: 'Write', toolInput: { file_path: file, content: 'x' }, cwd: project },
    policy,
  );

describe('the files the guard protects come from state/paths.ts', () => {
  const controlFiles = [
    ...loopControlPaths(loopPaths(loopDir)),
    ...projectControlPaths(projectPaths(project)),
  ];

  it('protects every control file paths.ts names, and nothing is left out', () => {
    for (const file of controlFiles) expect(policy.protectedPaths).toContain(file);
    expect(controlFiles).toEqual(
      expect.arrayContaining([join(loopDir, 'events.jsonl'), join(project, '.ralph', 'logs')]),
    );
  });

  it.each([
    ['events.jsonl'],
    ['status.json'],
    ['safety.json'],
    ['config.yaml'],
    ['logs/iteration-1-attempt-1.jsonl'],
    ['hooks/pre_run.sh'],
  ])('refuses a write to %s in the loop directory', (name) => {
    expect(write(join(loopDir, name)).decision).toBe('deny');
  });

  it('lets the agent write the task list and progress.txt', () => {
    expect(write(loopPaths(loopDir).prd).decision).toBe('allow');
    expect(write(loopPaths(loopDir).progress).decision).toBe('allow');
  });
});
