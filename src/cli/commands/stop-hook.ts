import { readdir } from 'node:fs/promises';
import { loopIdOfFileName, sessionLoopPaths } from '../../session-loop/paths.js';
import { projectDirOf } from '../../session-loop/project.js';

/**
 * `ralph stop-hook`, the Claude Code Stop hook of in-session loops. It runs at EVERY stop of every
 * session in a project where it is installed, mostly with no loop at all, so bin.ts comes here
 * before loading commander or the program, and this module imports only node built-ins and two
 * tiny modules. The JSON is parsed by hand just far enough to find the project (`cwd`); zod, yaml
 * and the config are loaded only when loop files exist, and session-loop/stop-hook.ts validates
 * the whole input then. Always exit 0: see session-loop/stop-hook.ts for why.
 */

export interface StopHookMainIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export const STOP_HOOK_HELP = `Usage: ralph stop-hook

The Claude Code Stop hook of in-session loops (\`ralph loop\`). Claude Code runs it at every stop
with the hook JSON on stdin; install it with \`ralph setup --stop-hook\` or \`ralph setup --plugin\`.
For each .claude/ralph-loop-<id>.local.md: an unclaimed loop is claimed by this session, a loop of
another session is left alone, this session's loop is fed its prompt again ({"decision":"block"})
until the completion promise is printed or the iteration limit is reached. Always exits 0.
`;

export async function stopHookMain(argv: readonly string[], io: StopHookMainIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(STOP_HOOK_HELP);
    return 0;
  }
  try {
    if (io.stdin.isTTY === true) {
      io.stderr.write('ralph stop-hook: expects the Stop hook JSON on stdin (see --help)\n');
      return 0;
    }
    const text = await readAll(io.stdin);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      io.stderr.write('ralph stop-hook: the hook input is not JSON; letting the session stop\n');
      return 0;
    }
    const projectDir = await projectDirOf(cwdOf(raw) ?? io.env.CLAUDE_PROJECT_DIR ?? io.cwd);
    if (!(await hasLoopFiles(projectDir))) return 0;
    const { runStopHook } = await import('../../session-loop/stop-hook.js');
    const result = await runStopHook(raw, projectDir, { ...io, now: new Date() });
    return result.exitCode;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`ralph stop-hook: internal error: ${message}; letting the session stop\n`);
    return 0;
  }
}

function cwdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const cwd = (raw as { cwd?: unknown }).cwd;
  return typeof cwd === 'string' && cwd !== '' ? cwd : undefined;
}

async function hasLoopFiles(projectDir: string): Promise<boolean> {
  const names = await readdir(sessionLoopPaths(projectDir).claudeDir).catch(() => []);
  return names.some((name) => loopIdOfFileName(name) !== undefined);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
