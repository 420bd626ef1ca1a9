import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_BIN_DIR } from '../harness.js';
import { finishedRun } from './agent-stream.js';
import {
  createFakeLoop,
  expectFilesAgree,
  passing,
  prdText,
  story,
  withoutGuardSettings,
} from './fake-loop.js';

/**
 * What ralph starts, and when it starts nothing: the argv and environment each story's agent
 * gets, the --dry-run plan, and preflight refusing before any agent call.
 */

const MCP_SERVERS = {
  files: { command: 'npx', args: ['-y', 'files-mcp'] },
  browser: { command: 'npx', args: ['-y', 'browser-mcp'] },
};

describe('ralph run with a fake claude: argv, dry run, preflight', () => {
  it('passes each story its model and MCP servers, skip-permissions, and no CLAUDECODE', async () => {
    const stories = [
      story(1, { model: 'opus' }),
      story(2),
      story(3, { mcpServers: [] }),
      story(4, { mcpServers: ['files'] }),
    ];
    const loop = await createFakeLoop(stories);
    await writeFile(join(loop.repo, '.mcp.json'), JSON.stringify({ mcpServers: MCP_SERVERS }));
    for (let n = 1; n <= stories.length; n += 1) {
      const ids = stories.slice(0, n).map((each) => each.id);
      await loop.agent(n, {
        taskList: prdText(passing(stories, ...ids)),
        jsonl: finishedRun(`session-${n}`, '<promise>STORY_COMPLETE</promise>'),
      });
    }
    // Through RALPH_CLAUDE_BIN this time, with no `claude` on PATH at all; started from inside
    // a Claude Code session (preflight refuses that, hence --skip-preflight).
    const env = {
      ...loop.env,
      PATH: (loop.env.PATH ?? '')
        .split(delimiter)
        .filter((dir) => dir !== FAKE_BIN_DIR)
        .join(delimiter),
      RALPH_CLAUDE_BIN: join(FAKE_BIN_DIR, 'claude'),
      CLAUDECODE: '1',
      CLAUDE_CODE_ENTRYPOINT: 'cli',
    };
    const run = await loop.run(
      ['run', '-m', 'sonnet', '--dangerously-skip-permissions', '--skip-preflight', '--pause', '0'],
      env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(await loop.calls()).toBe(4);

    const calls = await Promise.all([1, 2, 3, 4].map((n) => loop.argv(n)));
    const options = calls.map(({ argv }) => {
      expect(argv[0]).toBe('-p');
      return withoutGuardSettings(argv.slice(1));
    });
    const common = ['--output-format', 'stream-json', '--verbose'];
    expect(options[0]).toEqual([...common, '--model', 'opus', '--dangerously-skip-permissions']);
    expect(options[1]).toEqual([...common, '--model', 'sonnet', '--dangerously-skip-permissions']);
    expect(options[2]).toEqual([
      ...common,
      '--model',
      'sonnet',
      '--dangerously-skip-permissions',
      '--mcp-config',
      '{"mcpServers":{}}',
      '--strict-mcp-config',
    ]);
    const fourth = options[3]!;
    expect(fourth.slice(0, -2)).toEqual([
      ...common,
      '--model',
      'sonnet',
      '--dangerously-skip-permissions',
      '--mcp-config',
    ]);
    expect(JSON.parse(fourth.at(-2)!)).toEqual({ mcpServers: { files: MCP_SERVERS.files } });
    expect(fourth.at(-1)).toBe('--strict-mcp-config');
    for (const [index, call] of calls.entries()) {
      expect(call.prompt).toContain(`Work on **STORY-00${index + 1}:`);
      expect(call.env).toEqual({ CLAUDECODE: null, CLAUDE_CODE_ENTRYPOINT: null });
    }
    expect(await loop.status()).toMatchObject({ state: 'COMPLETE', storiesPassing: 4 });
    await expectFilesAgree(loop);
  });

  it('--dry-run prints the next story, model, argv and prompt size and starts no agent', async () => {
    const loop = await createFakeLoop([story(1, { model: 'haiku' }), story(2)]);
    const run = await loop.run(['run', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('Dry run — nothing is started.');
    expect(run.stdout).toContain('Next story:     STORY-001 Story number 1');
    expect(run.stdout).toContain('Model:          haiku (from story)');
    expect(run.stdout).toMatch(
      /Prompt: +\d+ bytes, ≈ \d+ tokens of the 16000-token budget \(context.tokenBudget\), from \S+prompt\.md/,
    );
    const command = lines.find((line) => line.startsWith('Command:'));
    expect(command).toContain(
      'claude -p --output-format stream-json --verbose --model haiku --permission-mode acceptEdits',
    );
    expect(command).toMatch(/ < prompt$/);

    const json = await loop.run(['run', '--dry-run', '--json', '-m', 'sonnet']);
    expect(json.code, json.stderr).toBe(0);
    const plan = JSON.parse(json.stdout) as {
      next: { id: string };
      model: { model: string; source: string };
      promptBytes: number;
      command: { command: string; args: string[]; stdin: string };
      promptTokens: number;
      tokenBudget: number;
      promptOverBudget: boolean;
      iteration: number;
    };
    expect(plan).toMatchObject({
      next: { id: 'STORY-001' },
      model: { model: 'haiku', source: 'story' },
      iteration: 1,
    });
    expect(plan.command.args.slice(0, 2)).toEqual(['-p', '--output-format']);
    expect(plan.command.stdin).toBe('prompt');
    expect(plan).toMatchObject({ tokenBudget: 16000, promptOverBudget: false });
    // ≈ 4 characters a token; a character may take several bytes.
    expect(plan.promptTokens).toBeLessThanOrEqual(Math.ceil(plan.promptBytes / 4));
    expect(plan.promptTokens).toBeGreaterThan(250);
    // The same guard hook a real run passes, its port not yet known.
    const settings = plan.command.args[plan.command.args.indexOf('--settings') + 1] ?? '';
    expect(settings).toContain('"url":"http://127.0.0.1:<port>/pre-tool-use"');
    expect(Number(/Prompt: +(\d+) bytes/.exec(run.stdout)?.[1])).toBe(plan.promptBytes);
    expect(plan.promptBytes).toBeGreaterThan(1000);

    // Nothing ran, nothing was written.
    expect(await loop.calls()).toBe(0);
    for (const file of ['status.json', 'events.jsonl', 'logs', '.ralph.lock']) {
      expect(existsSync(join(loop.dir, file))).toBe(false);
    }
  });

  it('stops with exit 2 before any agent call when preflight fails', async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent('default', { jsonl: finishedRun('session-never', 'should not run') });

    const nested = await loop.run(['run', '--pause', '0'], { ...loop.env, CLAUDECODE: '1' });
    // Which stream carries the report is the CLI's choice; that it names the failed check is not.
    const nestedOutput = nested.stdout + nested.stderr;
    expect(nested.code, nestedOutput).toBe(2);
    expect(nestedOutput).toContain('✗ Running inside a Claude Code session (CLAUDECODE is set)');
    expect(nestedOutput).toMatch(/preflight failed/i);

    await writeFile(loop.prdFile, '{ "userStories": [ { "id": "STORY-001" ');
    const invalid = await loop.run(['run', '--pause', '0']);
    expect(invalid.code, invalid.stdout + invalid.stderr).toBe(2);
    expect(invalid.stdout + invalid.stderr).toContain('✗ prd.json is invalid');

    expect(await loop.calls()).toBe(0);
    for (const file of ['status.json', 'events.jsonl', 'logs']) {
      expect(existsSync(join(loop.dir, file))).toBe(false);
    }
  });
});
