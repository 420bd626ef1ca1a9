import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusPath, itCorpus } from '../../../test/corpus.js';
import { createAgent } from '../registry.js';
import type { AgentEvent, AgentRunRequest } from '../types.js';
import { createClaudeAdapter } from './adapter.js';

const FAKE_CLAUDE = resolve(process.cwd(), 'test/fixtures/bin/claude');
const STORY_COMPLETE = resolve(process.cwd(), 'test/fixtures/agent/story-complete.jsonl');

const created: string[] = [];
afterAll(async () => {
  await Promise.all(created.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A repo to work in, a script dir for the fake claude, a HOME; the fake replays the script. */
async function setup() {
  const root = await mkdtemp(join(tmpdir(), 'ralph-claude-'));
  created.push(root);
  const dirs = { repo: join(root, 'repo'), script: join(root, 'script'), home: join(root, 'home') };
  await Promise.all(Object.values(dirs).map((dir) => mkdir(dir)));
  const env = {
    PATH: process.env.PATH,
    HOME: dirs.home,
    FAKE_CLAUDE_SCRIPT_DIR: dirs.script,
    CLAUDECODE: '1',
    CLAUDE_CODE_ENTRYPOINT: 'cli',
  };
  const adapter = createClaudeAdapter({ command: FAKE_CLAUDE, env, killGraceMs: 300 });
  const request = (extra: Partial<AgentRunRequest> = {}): AgentRunRequest => ({
    prompt: 'Work on STORY-001',
    cwd: dirs.repo,
    model: undefined,
    mcpServers: undefined,
    permission: { kind: 'skip' },
    settings: undefined,
    env,
    logFile: join(root, 'loop', 'logs', 'iteration-1-attempt-1.jsonl'),
    timeoutMs: 20_000,
    signal: new AbortController().signal,
    ...extra,
  });
  const recorded = async (call: number) => ({
    ...(JSON.parse(await readFile(join(dirs.script, `argv-${call}.json`), 'utf8')) as {
      argv: string[];
      cwd: string;
      pid: number;
      env: Record<string, string | null>;
    }),
    prompt: await readFile(join(dirs.script, `prompt-${call}.txt`), 'utf8'),
  });
  const script = (name: string, content: string) => writeFile(join(dirs.script, name), content);
  return { root, dirs, env, adapter, request, recorded, script };
}

/** True once `pid` has exited; a zombie counts as gone (PID 1 in a container may not reap). */
async function isGone(pid: number, withinMs = 2000): Promise<boolean> {
  const until = Date.now() + withinMs;
  for (;;) {
    try {
      process.kill(pid, 0);
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return true;
    } catch {
      return true;
    }
    if (Date.now() > until) return false;
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('claude adapter with the fake claude', () => {
  it('starts exactly the argv of commandLine(), without CLAUDECODE, in the cwd', async () => {
    const { adapter, request, recorded, dirs } = await setup();
    const run = request({ model: 'opus', mcpServers: [] });
    const result = await adapter.run(run);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, canceled: false, lineCount: 0 });
    const call = await recorded(1);
    expect(call.argv).toEqual(adapter.commandLine(run).args);
    expect(call.prompt).toBe('Work on STORY-001');
    expect(call.argv).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--model',
      'opus',
      '--dangerously-skip-permissions',
      '--mcp-config',
      '{"mcpServers":{}}',
      '--strict-mcp-config',
    ]);
    expect(call.env).toEqual({ CLAUDECODE: null, CLAUDE_CODE_ENTRYPOINT: null });
    expect(call.cwd).toBe(dirs.repo);
    expect(adapter.commandLine(run).command).toBe(FAKE_CLAUDE);
  });

  it('builds the argv per story: model and MCP servers change between calls', async () => {
    const { adapter, request, recorded, dirs } = await setup();
    await writeFile(
      join(dirs.repo, '.mcp.json'),
      JSON.stringify({ mcpServers: { playwright: { command: 'npx', args: ['@playwright/mcp'] } } }),
    );
    await adapter.run(request({ model: 'sonnet', mcpServers: ['playwright'] }));
    await adapter.run(request({ permission: { kind: 'mode', mode: 'acceptEdits' } }));
    const first = (await recorded(1)).argv;
    const second = (await recorded(2)).argv;
    expect(first.slice(4)).toEqual([
      '--model',
      'sonnet',
      '--dangerously-skip-permissions',
      '--mcp-config',
      '{"mcpServers":{"playwright":{"command":"npx","args":["@playwright/mcp"]}}}',
      '--strict-mcp-config',
    ]);
    expect(second.slice(4)).toEqual(['--permission-mode', 'acceptEdits']);
  });

  it('passes a prompt with quotes, newlines and non-ASCII through stdin unchanged', async () => {
    const { adapter, request, recorded } = await setup();
    const prompt = 'Story "A"\n\t$HOME `x` \\n — ✅ <promise>COMPLETE</promise>\n';
    await adapter.run(request({ prompt, settings: { hooks: {} } }));
    const call = await recorded(1);
    expect(call.prompt).toBe(prompt);
    expect(call.argv.join(' ')).not.toContain('Story');
    expect(call.argv.slice(-2)).toEqual(['--settings', '{"hooks":{}}']);
  });

  it('passes a 300 KiB prompt (over the 128 KiB limit of one argument) and one starting with -', async () => {
    const { adapter, request, recorded } = await setup();
    const big = `---\ntitle: x\n---\n${'a story line that goes on\n'.repeat(12_000)}`;
    const result = await adapter.run(request({ prompt: big }));
    expect(result.spawnError).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect((await recorded(1)).prompt).toBe(big);
  });

  itCorpus('logs every line byte for byte, reports events and collects the result', async () => {
    const { adapter, request, script, dirs } = await setup();
    // A real transcript with banner lines, a result that is not the last line and a trailer.
    await copyFile(
      corpusPath('transcripts', 'hybrid33-iteration-5.jsonl'),
      join(dirs.script, '1.jsonl'),
    );
    await copyFile(STORY_COMPLETE, join(dirs.script, '2.jsonl'));
    await script('2.sh', 'echo "working on it" >&2\n');
    await script('2.exit', '3\n');
    const events: AgentEvent[] = [];
    const first = request({ onEvent: (event) => events.push(event) });
    const result = await adapter.run(first);
    const log = await readFile(first.logFile);
    // Buffer.equals: a deep toEqual over 741 KB of bytes takes a second.
    expect(log.equals(await readFile(join(dirs.script, '1.jsonl')))).toBe(true);
    expect(result).toMatchObject({
      exitCode: 0,
      sessionId: '2f144f55-b144-458a-954d-b6813c683a79',
      model: 'claude-opus-4-5-20251101',
      lineCount: 141,
      result: { subtype: 'success', isError: false, costUsd: 2.38030975, numTurns: 55 },
    });
    expect(result.finalText?.endsWith('<promise>STORY_COMPLETE</promise>')).toBe(true);
    expect(result.toolCalls).toHaveLength(54);
    // Three banner lines, a system/task_notification line and the "Exit code: 0" trailer.
    expect(events.filter((event) => event.type === 'unknown')).toHaveLength(5);
    expect(events.filter((event) => event.type === 'result')).toHaveLength(1);

    const second = request({ logFile: join(dirs.script, 'logs', 'two.jsonl') });
    const story = await adapter.run(second);
    expect(await readFile(second.logFile, 'utf8')).toBe(await readFile(STORY_COMPLETE, 'utf8'));
    expect(story).toMatchObject({
      exitCode: 3,
      stderrTail: 'working on it\n',
      sessionId: '5b1c2f4e-8d3a-4c6b-9e21-0f7a3d9c1b42',
      model: 'claude-sonnet-5-5',
      finalText: 'The story passes its tests.\n\n<promise>STORY_COMPLETE</promise>',
      toolCalls: [
        { id: 'toolu_1', name: 'Read', summary: '/repo/prompt.md' },
        { id: 'toolu_2', name: 'Bash', summary: 'npm test' },
      ],
    });
  });

  it('logs the exact bytes even for \r\n and a last line without newline', async () => {
    const { adapter, request, script } = await setup();
    await script(
      '1.sh',
      'printf \'{"type":"system","subtype":"init","session_id":"s"}\\r\\nExit code: 0\'\n',
    );
    const run = request();
    const result = await adapter.run(run);
    expect(await readFile(run.logFile, 'utf8')).toBe(
      '{"type":"system","subtype":"init","session_id":"s"}\r\nExit code: 0',
    );
    expect(result).toMatchObject({ sessionId: 's', lineCount: 2 });
  });

  itCorpus('tolerates a run cut before its result line', async () => {
    const { adapter, request, dirs } = await setup();
    await copyFile(
      corpusPath('transcripts', 'hybrid33-iteration-8.jsonl'),
      join(dirs.script, '1.jsonl'),
    );
    await writeFile(join(dirs.script, '1.exit'), '1');
    const result = await adapter.run(request());
    expect(result).toMatchObject({ exitCode: 1, result: undefined, lineCount: 165 });
    // Cut after a tool call: no final message, so nothing there can count as a promise.
    expect(result.finalText).toBeUndefined();
  });

  it('keeps only the last 8 KB of stderr', async () => {
    const { adapter, request, script } = await setup();
    await script(
      '1.sh',
      'i=0; while [ $i -lt 400 ]; do echo "stderr line $i ......" >&2; i=$((i+1)); done\n',
    );
    const result = await adapter.run(request());
    expect(result.stderrTail).toHaveLength(8192);
    expect(result.stderrTail.endsWith('stderr line 399 ......\n')).toBe(true);
  });

  it('kills a hanging agent and its grandchild at the timeout', async () => {
    const { adapter, request, script, recorded, dirs } = await setup();
    await script(
      '1.sh',
      'sleep 60 & echo $! > "$FAKE_CLAUDE_SCRIPT_DIR/grandchild"\necho \'{"type":"system","subtype":"init","session_id":"s-hang"}\'\nsleep 60\n',
    );
    const result = await adapter.run(request({ timeoutMs: 500 }));
    expect(result).toMatchObject({ timedOut: true, canceled: false, exitCode: undefined });
    expect(result.sessionId).toBe('s-hang');
    const grandchild = Number(await readFile(join(dirs.script, 'grandchild'), 'utf8'));
    expect(await isGone(grandchild)).toBe(true);
    expect(await isGone((await recorded(1)).pid)).toBe(true);
  });

  it('reports an abort as canceled and stops the agent', async () => {
    const { adapter, request, script } = await setup();
    await script(
      '1.sh',
      'echo \'{"type":"system","subtype":"init","session_id":"s-abort"}\'\nsleep 60\n',
    );
    const controller = new AbortController();
    const result = await adapter.run(
      request({
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'init') controller.abort();
        },
      }),
    );
    expect(result).toMatchObject({ canceled: true, timedOut: false, exitSignal: 'SIGTERM' });
    expect(result.durationMs).toBeLessThan(5000);
  });

  it('reports an executable that does not exist as spawnError', async () => {
    const { env, request } = await setup();
    const adapter = createClaudeAdapter({ command: '/nonexistent/claude', env });
    const result = await adapter.run(request());
    expect(result).toMatchObject({ spawnError: 'ENOENT', exitCode: undefined, lineCount: 0 });
  });

  it('rejects with IO when the log cannot be written, before starting the agent', async () => {
    const { adapter, request, dirs, script } = await setup();
    await script('blocker', '');
    const run = request({ logFile: join(dirs.script, 'blocker', 'logs', 'iteration-1.jsonl') });
    await expect(adapter.run(run)).rejects.toMatchObject({ code: 'IO' });
    await expect(readFile(join(dirs.script, 'calls'), 'utf8')).rejects.toThrow();
  });

  it('rejects with AGENT_CONFIG for an unknown MCP server before starting anything', async () => {
    const { adapter, request, dirs } = await setup();
    const run = request({ mcpServers: ['nowhere'] });
    await expect(adapter.run(run)).rejects.toMatchObject({ code: 'AGENT_CONFIG' });
    expect(() => adapter.commandLine(run)).toThrow(/"nowhere" not found/);
    await expect(readFile(join(dirs.script, 'calls'), 'utf8')).rejects.toThrow();
  });

  it('probes the version and is what the registry creates for "claude"', async () => {
    const { env } = await setup();
    const agent = createAgent('claude', { command: FAKE_CLAUDE, env });
    expect(agent.id).toBe('claude');
    expect(await agent.probe()).toMatchObject({ found: true, version: '2.1.330' });
  });
});

describe('fake claude protocol', () => {
  it('counts calls, falls back to default.*, and keeps --version out of the count', async () => {
    const { adapter, request, script, recorded, dirs } = await setup();
    await script('default.jsonl', '{"type":"result","subtype":"success","result":"default"}\n');
    await script('default.exit', '2');
    await script('2.jsonl', '{"type":"result","subtype":"success","result":"second"}\n');
    await adapter.probe();
    const results = [];
    for (let call = 0; call < 3; call += 1) results.push(await adapter.run(request()));
    expect(results.map((result) => [result.result?.resultText, result.exitCode])).toEqual([
      ['default', 2],
      ['second', 2],
      ['default', 2],
    ]);
    expect(await readFile(join(dirs.script, 'calls'), 'utf8')).toBe('3\n');
    expect((await recorded(3)).argv[0]).toBe('-p');
  });
});
