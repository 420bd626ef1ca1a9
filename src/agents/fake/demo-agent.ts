import { randomUUID } from 'node:crypto';
import { appendFile, copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { runToCompletion } from '../spawn.js';
import type {
  AgentAdapter,
  AgentEvent,
  AgentRunRequest,
  AgentRunResult,
  ToolCall,
} from '../types.js';

/**
 * The scripted agent of `ralph demo`: it does what a real agent does in an iteration — writes
 * the story's code and tests (from a solutions folder), runs the project's tests, marks the
 * story passing, appends to progress.txt, commits — with no model and no account. Its output
 * log has Claude Code's stream-json shape, so `ralph inspect` and the monitor read it as usual.
 */
export function createDemoAgent(options: { solutionsDir: string }): AgentAdapter {
  return {
    id: 'claude',
    probe: () =>
      Promise.resolve({
        agent: 'claude',
        command: 'ralph demo agent',
        found: true,
        version: 'demo',
        problem: undefined,
      }),
    commandLine: () => ({ command: 'ralph-demo-agent', args: [] }),
    run: (request) => runDemoIteration(request, options.solutionsDir),
  };
}

async function runDemoIteration(
  request: AgentRunRequest,
  solutionsDir: string,
): Promise<AgentRunResult> {
  const started = Date.now();
  const sessionId = randomUUID();
  const log = new StreamLog(request, sessionId);
  await mkdir(dirname(request.logFile), { recursive: true });
  await log.line({
    type: 'system',
    subtype: 'init',
    session_id: sessionId,
    model: 'demo',
    claude_code_version: 'demo',
  });

  const storyId = /Work on \*\*([^:*]+):/.exec(request.prompt)?.[1];
  const taskList = /- task list: (.+?) \(/.exec(request.prompt)?.[1];
  const progress = /- progress log: (.+?) \(/.exec(request.prompt)?.[1];
  if (storyId === undefined || taskList === undefined || progress === undefined) {
    return log.finish('The prompt names no story; nothing to do.', started, true);
  }
  await log.text(`Working on ${storyId}: writing the tests and the code.`);

  const solution = join(solutionsDir, storyId);
  const files = await listFiles(solution);
  for (const file of files) {
    const target = join(request.cwd, relative(solution, file));
    await mkdir(dirname(target), { recursive: true });
    await copyFile(file, target);
    await log.tool(
      { name: 'Write', input: { file_path: target } },
      `File created successfully at: ${target}`,
    );
  }

  const tests = await runToCompletion(process.execPath, ['--test'], {
    cwd: request.cwd,
    env: request.env,
    timeoutMs: 60_000,
  });
  await log.tool(
    { name: 'Bash', input: { command: 'npm test', description: 'Run the tests' } },
    tests.stdout.slice(-2000),
  );
  if (tests.exitCode !== 0)
    return log.finish(`Tests fail for ${storyId}; leaving it open.`, started, false);

  const taskListPath = resolve(request.cwd, taskList);
  const prd = JSON.parse(await readFile(taskListPath, 'utf8')) as {
    userStories: { id: string; passes: boolean }[];
  };
  for (const story of prd.userStories) if (story.id === storyId) story.passes = true;
  await writeFile(taskListPath, `${JSON.stringify(prd, null, 2)}\n`);
  await log.tool(
    { name: 'Edit', input: { file_path: taskListPath } },
    'The file has been updated.',
  );

  const learned = `\nIteration for ${storyId}: added ${files.map((file) => relative(solution, file)).join(', ')}; npm test passes.\n`;
  await appendFile(resolve(request.cwd, progress), learned);
  const git = (args: string[]) =>
    runToCompletion('git', args, { cwd: request.cwd, env: request.env, timeoutMs: 30_000 });
  await git(['add', '-A']);
  const commit = await git(['commit', '-q', '-m', `${storyId}: implemented with tests`]);
  await log.tool(
    { name: 'Bash', input: { command: `git commit -m "${storyId}: …"` } },
    commit.stdout || commit.stderr,
  );

  const open = prd.userStories.filter((story) => !story.passes).length;
  const promise = open === 0 ? '<promise>COMPLETE</promise>' : '<promise>STORY_COMPLETE</promise>';
  return log.finish(`${storyId} is done and committed. ${promise}`, started, false);
}

/** Writes Claude Code-shaped stream-json lines to the iteration log and reports them live. */
class StreamLog {
  private readonly toolCalls: ToolCall[] = [];
  private finalText: string | undefined;
  private lines = 0;
  private turn = 0;

  constructor(
    private readonly request: AgentRunRequest,
    private readonly sessionId: string,
  ) {}

  async line(value: object): Promise<void> {
    this.lines += 1;
    await appendFile(this.request.logFile, `${JSON.stringify(value)}\n`);
  }

  private emit(event: AgentEvent): void {
    this.request.onEvent?.(event);
  }

  async text(text: string): Promise<void> {
    this.finalText = text;
    await this.line(this.assistant({ type: 'text', text }));
    this.emit({ type: 'text', text });
  }

  async tool(call: { name: string; input: Record<string, string> }, result: string): Promise<void> {
    const id = `toolu_demo_${++this.turn}`;
    const summary = call.input.command ?? call.input.file_path ?? '';
    this.toolCalls.push({ id, name: call.name, summary });
    await this.line(this.assistant({ type: 'tool_use', id, name: call.name, input: call.input }));
    this.emit({ type: 'tool_use', call: { id, name: call.name, summary } });
    await this.line({
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: result }],
      },
      session_id: this.sessionId,
    });
  }

  private assistant(block: object): object {
    return {
      type: 'assistant',
      message: { type: 'message', role: 'assistant', model: 'demo', content: [block] },
      session_id: this.sessionId,
    };
  }

  async finish(text: string, started: number, isError: boolean): Promise<AgentRunResult> {
    await this.text(text);
    const durationMs = Date.now() - started;
    const result = {
      subtype: 'success',
      isError,
      apiErrorStatus: undefined,
      resultText: text,
      sessionId: this.sessionId,
      costUsd: 0,
      numTurns: this.turn + 1,
      usage: undefined,
      permissionDenials: [],
      durationMs,
    };
    await this.line({
      type: 'result',
      subtype: 'success',
      is_error: isError,
      result: text,
      session_id: this.sessionId,
      total_cost_usd: 0,
      num_turns: result.numTurns,
      duration_ms: durationMs,
    });
    this.emit({ type: 'result', summary: result });
    return {
      exitCode: isError ? 1 : 0,
      exitSignal: undefined,
      timedOut: false,
      canceled: false,
      spawnError: undefined,
      sessionId: this.sessionId,
      model: 'demo',
      result,
      finalText: this.finalText,
      toolCalls: this.toolCalls,
      rateLimits: [],
      stderrTail: '',
      lineCount: this.lines,
      durationMs,
    };
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
