import { spawnForTest } from '../harness.js';
import { claudeBinary } from './env.js';

/** The stream-json `result` line; fields are read by name, unknown ones kept (facts §4). */
export interface ResultLine {
  type: 'result';
  subtype: string;
  is_error: boolean;
  api_error_status: number | null;
  num_turns: number;
  result: string;
  session_id: string;
  total_cost_usd: number;
  stop_reason?: string | null;
  [key: string]: unknown;
}

export interface ClaudeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Every stdout line that parsed as JSON. */
  lines: Record<string, unknown>[];
  result: ResultLine | undefined;
  durationMs: number;
}

export interface RunClaudeOptions {
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  /** Extra flags after the defaults, e.g. `['--settings', json]`. */
  args?: string[];
  /**
   * Kill the process group after this long. Default 12 s: under the usual 15 s test timeout, so
   * a stuck run fails with its output instead of a bare vitest timeout.
   */
  timeoutMs?: number;
}

/** The flags every test uses: headless, machine-readable, no permission prompts. */
export const defaultArgs = (prompt: string): string[] => [
  '-p',
  prompt,
  '--output-format',
  'stream-json',
  '--verbose',
  '--model',
  'sonnet',
  '--dangerously-skip-permissions',
];

/** Runs the real CLI once, stdin closed (an open stdin costs a 3 s wait, gotcha 5). */
export function runClaude(options: RunClaudeOptions): Promise<ClaudeRun> {
  const started = performance.now();
  // Own process group (killed when the test ends), so a timeout also reaches the shells the Bash
  // tool started.
  const args = [...defaultArgs(options.prompt), ...(options.args ?? [])];
  const child = spawnForTest(claudeBinary(), args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, options.timeoutMs ?? 12_000);

  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = parseLines(stdout);
      resolve({
        code,
        signal,
        stdout,
        stderr,
        lines,
        result: lines.find((l): l is ResultLine => l.type === 'result'),
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}

function parseLines(stdout: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // A partial or non-JSON line is kept in `stdout` for the failure message.
    }
  }
  return out;
}
