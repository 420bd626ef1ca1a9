import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import type { AgentAdapter, AgentRunRequest, AgentRunResult } from '../src/agents/types.js';

/**
 * A feature branch in a temp git repo and a scripted AgentAdapter, for the unit tests of
 * `ralph verify` and `ralph debug` (src/run/verify.test.ts, debug.test.ts): real git, no agent
 * process.
 */

export const FEATURE_BRANCH = 'feature/widget';
export const LOOP_DIR = '.ralph/feature-widget';

export interface FeatureRepo {
  repo: string;
  home: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  git(...args: string[]): string;
  write(path: string, content: string): Promise<void>;
}

/** main with one commit (src/base.ts, which has a TODO of its own), then the feature branch. */
export async function featureRepo(): Promise<FeatureRepo> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'ralph-session-')));
  onTestFinished(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await mkdir(repo);
  await mkdir(home);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Ralph Test',
    GIT_AUTHOR_EMAIL: 'ralph@example.test',
    GIT_COMMITTER_NAME: 'Ralph Test',
    GIT_COMMITTER_EMAIL: 'ralph@example.test',
  };
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim();
  const write = async (path: string, content: string): Promise<void> => {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), content);
  };
  git('init', '-q', '-b', 'main');
  await write(
    'src/base.ts',
    '// TODO: an old note on main, not the feature\nexport const base = 1;\n',
  );
  git('add', '.');
  git('commit', '-qm', 'base');
  git('switch', '-qc', FEATURE_BRANCH);
  await write(`${LOOP_DIR}/spec.md`, '# Widget\n\n## Goals\n\n- A widget can be saved.\n');
  await write(
    `${LOOP_DIR}/prd.json`,
    `${JSON.stringify({ userStories: [{ id: 'STORY-001', title: 'Save a widget', passes: true }] })}\n`,
  );
  return { repo, home, dir: join(repo, LOOP_DIR), env, git, write };
}

export type AgentStep = (request: AgentRunRequest) => Promise<void> | void;

/** An adapter whose run does `step` (write files, throw nothing) and reports a normal end. */
export function scriptedAgent(
  step: AgentStep,
  result: Partial<AgentRunResult> = {},
): AgentAdapter & { requests: AgentRunRequest[] } {
  const requests: AgentRunRequest[] = [];
  return {
    id: 'claude',
    requests,
    probe: () =>
      Promise.resolve({
        agent: 'claude',
        command: 'scripted',
        found: true,
        version: 'test',
        problem: undefined,
      }),
    commandLine: () => ({ command: 'scripted', args: [] }),
    run: async (request) => {
      requests.push(request);
      await step(request);
      return {
        exitCode: 0,
        exitSignal: undefined,
        timedOut: false,
        canceled: request.signal.aborted,
        spawnError: undefined,
        sessionId: 'session-1',
        model: request.model,
        result: undefined,
        finalText: 'done',
        toolCalls: [],
        rateLimits: [],
        stderrTail: '',
        lineCount: 1,
        durationMs: 5,
        ...result,
      };
    },
  };
}
