import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { bash, perSession, reply, scriptedSteps, write } from '../fake-anthropic/script.js';
import { runRalph } from '../harness.js';
import { claudeBinary, claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';

/**
 * Memories with the real Claude Code CLI: the fake model reads the memories section of ralph's
 * prompt and acts on it (the port it writes comes from the project's memory, and a memory the
 * story's tags exclude must not show), then records what it learned in the loop directory's
 * memories.md the loose way an agent would; ralph tidies that entry after the iteration.
 */

const LOOP = '.ralph/feature-memo';

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

describe('memories with the real Claude Code CLI', () => {
  it('the model acts on a tagged memory and what it appends is normalised', async () => {
    sandbox = makeSandbox('ralph-memories-e2e-');
    const { repo, root } = sandbox;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
    git('checkout', '-q', '-b', 'feature/memo');
    git('config', 'user.name', 'e2e');
    git('config', 'user.email', 'e2e@example.com');

    const seen: string[] = [];
    fake = await startFakeAnthropic(
      perSession((first) => {
        const prompt = first.prompt();
        seen.push(prompt);
        // What the "model" knows comes only from the prompt it was given.
        const port = /The dev server listens on port (\d+)/.exec(prompt)?.[1] ?? 'unknown';
        const file = `${LOOP}/prd.json`;
        const flip = `node -e 'const fs=require("fs");const p=JSON.parse(fs.readFileSync("${file}","utf8"));p.userStories[0].passes=true;fs.writeFileSync("${file}",JSON.stringify(p,null,2)+"\\n")'`;
        return scriptedSteps([
          reply('Configuring the server.', write(join(repo, 'server.config'), `port=${port}\n`)),
          reply(
            bash(
              `printf '%s\\n' '- [tags: Server, Config] server.config is read once at start-up' >> ${LOOP}/memories.md`,
              'Record a learning',
            ),
          ),
          reply(bash(`${flip} && git add server.config && git commit -qm config`, 'Done')),
          'Done. <promise>COMPLETE</promise>',
        ]);
      }),
    );
    const env = { ...claudeEnv({ baseUrl: fake.url, root }), RALPH_CLAUDE_BIN: claudeBinary() };
    expect((await runRalph(['init'], repo, env)).code).toBe(0);
    const prd = {
      description: 'config',
      createdAt: '2026-11-23T00:00:00Z',
      userStories: [
        {
          id: 'STORY-001',
          title: 'Server config',
          description: 'Write server.config with the dev server port',
          acceptanceCriteria: ['server.config names the port'],
          priority: 1,
          passes: false,
          notes: '',
          tags: ['server'],
        },
      ],
    };
    await writeFile(join(repo, LOOP, 'prd.json'), `${JSON.stringify(prd, null, 2)}\n`);
    execFileSync('rm', [join(repo, LOOP, 'spec.md')]);
    await mkdir(join(repo, '.ralph'), { recursive: true });
    await writeFile(
      join(repo, '.ralph', 'memories.md'),
      '# Memories\n\n## Context\n\n- [2026-01-01T00:00:00Z] [tags: server] The dev server listens on port 4173\n- [2026-01-02T00:00:00Z] [tags: billing] Invoices are immutable\n',
    );
    const feature = '# Memories\n\n## Fixes\n';
    await writeFile(join(repo, LOOP, 'memories.md'), feature);

    const run = await runRalph(
      ['run', '--dangerously-skip-permissions', '--pause', '0', '-n', '2'],
      repo,
      env,
    );
    expect(fake.scriptErrors).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('## Memories');
    expect(seen[0]).not.toContain('Invoices are immutable');
    expect(await readFile(join(repo, 'server.config'), 'utf8')).toBe('port=4173\n');
    const after = await readFile(join(repo, LOOP, 'memories.md'), 'utf8');
    expect(after).toMatch(
      /^# Memories\n\n## Fixes\n- \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] \[tags: server,config\] server\.config is read once at start-up\n$/,
    );
  }, 90_000);
});
