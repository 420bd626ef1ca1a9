import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RALPH_BIN, spawnForTest, type RunResult } from '../harness.js';

/** Runs the built binary with `input` on stdin (the harness's runRalph gives no stdin). */
export function runRalphInput(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input: string,
): Promise<RunResult> {
  return runShell(process.execPath, [RALPH_BIN, ...args], cwd, env, input);
}

/** Runs a command line through `sh -c`, as Claude Code runs hook commands. */
export function runHookCommand(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  input: string,
): Promise<RunResult> {
  return runShell('/bin/sh', ['-c', command], cwd, env, input);
}

function runShell(
  file: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  input: string,
): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawnForTest(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code) => {
      done({ code: code ?? 1, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

export function hookInput(
  cwd: string,
  sessionId: string,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    session_id: sessionId,
    transcript_path: join(cwd, '..', `${sessionId}.jsonl`),
    cwd,
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: 'Working on it.',
    ...extra,
  });
}

export async function loopFiles(repo: string): Promise<string[]> {
  const names = await readdir(join(repo, '.claude')).catch(() => []);
  return names.filter((name) => name.startsWith('ralph-loop-')).sort();
}
