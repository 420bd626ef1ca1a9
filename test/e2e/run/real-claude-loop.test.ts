import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { bash, perSession, reply, scriptedSteps, write } from '../fake-anthropic/script.js';
import { runRalph } from '../harness.js';
import { claudeBinary, claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';

/**
 * The main job end to end: `ralph run` drives the real Claude Code CLI (pinned 2.1.330) through
 * three stories. A fake Messages API on 127.0.0.1 plays the model: for each fresh claude process
 * it reads which story ralph's prompt names, then really writes the code and test with Write,
 * runs the tests, marks the story passing and commits with Bash, and prints the promise.
 */

const LOOP = '.ralph/feature-e2e';
const STORIES = [
  {
    id: 'STORY-001',
    name: 'add',
    body: 'export const add = (a, b) => a + b;\n',
    check: 'add(2, 3), 5',
  },
  {
    id: 'STORY-002',
    name: 'sub',
    body: 'export const sub = (a, b) => a - b;\n',
    check: 'sub(5, 3), 2',
  },
  {
    id: 'STORY-003',
    name: 'mul',
    body: 'export const mul = (a, b) => a * b;\n',
    check: 'mul(2, 4), 8',
  },
];

function flipPasses(id: string): string {
  const file = `${LOOP}/prd.json`;
  return `node -e 'const fs=require("fs");const f="${file}";const p=JSON.parse(fs.readFileSync(f,"utf8"));p.userStories.find(s=>s.id==="${id}").passes=true;fs.writeFileSync(f,JSON.stringify(p,null,2)+"\\n")'`;
}

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

describe('ralph run with the real Claude Code CLI', () => {
  it('completes a three-story prd.json, one fresh claude process per story', async () => {
    sandbox = makeSandbox('ralph-run-e2e-');
    const { repo, root } = sandbox;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('checkout', '-q', '-b', 'feature/e2e');
    git('config', 'user.name', 'e2e');
    git('config', 'user.email', 'e2e@example.com');
    await writeFile(
      join(repo, 'package.json'),
      '{ "type": "module", "scripts": { "test": "node --test" } }\n',
    );

    fake = await startFakeAnthropic(
      perSession((first) => {
        const id = /Work on \*\*(STORY-\d+):/.exec(first.prompt())?.[1];
        const story = STORIES.find((each) => each.id === id);
        if (story === undefined)
          throw new Error(`no story named in the prompt: ${first.prompt().slice(0, 200)}`);
        const last = story.id === 'STORY-003';
        return scriptedSteps([
          reply(
            `Implementing ${story.id} test first.`,
            write(
              join(repo, 'test', `${story.name}.test.js`),
              `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { ${story.name} } from '../src/${story.name}.js';\ntest('${story.name}', () => assert.equal(${story.check}));\n`,
            ),
          ),
          reply(write(join(repo, 'src', `${story.name}.js`), story.body)),
          reply(bash('node --test', 'Run the tests')),
          reply(bash(flipPasses(story.id), 'Mark the story passing')),
          reply(bash(`git add -A && git commit -qm "${story.id}: ${story.name}"`, 'Commit')),
          `${story.id} is done: tests pass and it is committed. ${
            last ? '<promise>COMPLETE</promise>' : '<promise>STORY_COMPLETE</promise>'
          }`,
        ]);
      }),
    );
    const env = { ...claudeEnv({ baseUrl: fake.url, root }), RALPH_CLAUDE_BIN: claudeBinary() };

    const init = await runRalph(['init'], repo, env);
    expect(init.code).toBe(0);
    const prd = {
      description: 'arithmetic',
      createdAt: '2026-11-22T00:00:00Z',
      userStories: STORIES.map((story, index) => ({
        id: story.id,
        title: `${story.name} two numbers`,
        description: `Export ${story.name} from src/${story.name}.js`,
        acceptanceCriteria: [`${story.check.split(',')[0] ?? ''} works`, 'Unit tests pass'],
        priority: index + 1,
        passes: false,
        notes: '',
      })),
    };
    await writeFile(join(repo, LOOP, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
    execFileSync('rm', [join(repo, LOOP, 'spec.md')]);

    const run = await runRalph(
      ['run', '--dangerously-skip-permissions', '--pause', '0', '-n', '6'],
      repo,
      env,
    );
    expect(fake.scriptErrors).toEqual([]);
    expect(run.stderr).not.toContain('internal error');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('COMPLETE — every story passes');

    // The agent's work is real: code, tests, commits.
    for (const story of STORIES) {
      expect(existsSync(join(repo, 'src', `${story.name}.js`))).toBe(true);
    }
    const log = execFileSync('git', ['log', '--format=%s'], { cwd: repo, encoding: 'utf8' });
    expect(log).toContain('STORY-001: add');
    expect(log).toContain('STORY-003: mul');

    const after = JSON.parse(await readFile(join(repo, LOOP, 'prd.json'), 'utf8')) as typeof prd;
    expect(after.userStories.map((story) => story.passes)).toEqual([true, true, true]);

    // Three iterations, three sessions: ralph recorded the ones the API saw, and their cost.
    const sessions = fake.sessions();
    expect(sessions).toHaveLength(3);
    const status = JSON.parse(await readFile(join(repo, LOOP, 'status.json'), 'utf8')) as {
      state: string;
      iteration: number;
      storiesPassing: number;
      costUsd: number;
      sessionId: string;
    };
    expect(status).toMatchObject({
      state: 'COMPLETE',
      iteration: 3,
      storiesPassing: 3,
      sessionId: sessions[2],
    });
    expect(status.costUsd).toBeGreaterThan(0);
    const progress = await readFile(join(repo, LOOP, 'progress.txt'), 'utf8');
    for (const [index, session] of sessions.entries()) {
      expect(progress).toMatch(
        new RegExp(
          `\\| ${index + 1} \\| 1 \\| [^|]+ \\| STORY-00${index + 1} \\| [^|]+ \\| ${session} \\| \\$0\\.\\d{4} \\|`,
        ),
      );
    }
    for (let iteration = 1; iteration <= 3; iteration += 1) {
      const raw = await readFile(
        join(repo, LOOP, 'logs', `iteration-${iteration}-attempt-1.jsonl`),
        'utf8',
      );
      expect(raw).toContain('"type":"result"');
    }
    // ralph's own run state never lands in the agent's commits.
    const tracked = execFileSync('git', ['ls-files', LOOP], { cwd: repo, encoding: 'utf8' });
    expect(tracked).not.toContain('status.json');
    expect(tracked).not.toContain('events.jsonl');
  }, 90_000);
});
