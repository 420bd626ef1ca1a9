import { spawnStreaming } from '../agents/spawn.js';
import { isFile, loopPaths, type HookPoint } from '../state/paths.js';

/**
 * The person's hook scripts: `DIR/hooks/<point>.sh`, run with bash (as the Ralph Hybrid spec has
 * them, so no executable bit is needed) in the repository, with ralph's environment plus the
 * RALPH_* variables of the point. Each gets a time limit and its whole process group is killed
 * past it. What a hook prints goes to `output`, line by line; a failure comes back as a sentence
 * for a warning, never as an exception: a hook must not stop the loop.
 */

export interface ScriptHookOptions {
  loopDir: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Per hook; 0 means none. */
  timeoutMs: number;
  output: (point: HookPoint, line: string) => void;
  /** How long a hook may go on once the run is interrupted; URGENT_TIMEOUT_MS by default. */
  urgentMs?: number;
}

/** How long a hook may take while the run is being interrupted (Ctrl+C must stay prompt). */
export const URGENT_TIMEOUT_MS = 5000;

export function scriptHooks(options: ScriptHookOptions) {
  return {
    async run(
      point: HookPoint,
      variables: Record<string, string>,
      urgent: boolean,
      signal?: AbortSignal,
    ): Promise<string | undefined> {
      const file = loopPaths(options.loopDir).hook(point);
      if (!(await isFile(file))) return undefined;
      const urgentMs = options.urgentMs ?? URGENT_TIMEOUT_MS;
      const timeoutMs = urgent
        ? Math.min(options.timeoutMs || urgentMs, urgentMs)
        : options.timeoutMs;
      let lastError = '';
      let partial = '';
      const errorLines = (text: string) => {
        for (const line of text.split(/\r?\n/)) {
          if (line === '') continue;
          lastError = line;
          options.output(point, line);
        }
      };
      // Ctrl+C while a hook runs: it gets urgentMs more, then its group is killed.
      const cutOff = new AbortController();
      let grace: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        grace = setTimeout(() => {
          cutOff.abort();
        }, urgentMs);
      };
      if (signal?.aborted === true && !urgent) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      const result = await spawnStreaming('bash', [file], {
        cwd: options.cwd,
        env: { ...options.env, ...variables },
        timeoutMs,
        signal: cutOff.signal,
        killGraceMs: 1000,
        onLine: (line) => {
          options.output(point, line);
        },
        onStderr: (chunk) => {
          const text = partial + chunk;
          const end = text.lastIndexOf('\n') + 1;
          partial = text.slice(end);
          errorLines(text.slice(0, end));
        },
      });
      errorLines(partial);
      signal?.removeEventListener('abort', onAbort);
      if (grace !== undefined) clearTimeout(grace);
      if (result.isCanceled) return `stopped ${urgentMs / 1000} s after the run was interrupted`;
      if (result.code !== undefined) return `could not start bash (${result.code}) for ${file}`;
      if (result.timedOut) return `killed after ${timeoutMs / 1000} s (hooks.timeoutSeconds)`;
      if (result.signal !== undefined) return `ended by ${result.signal}`;
      if (result.exitCode !== 0) {
        const why = lastError === '' ? '' : `: ${lastError}`;
        return `exit code ${String(result.exitCode)}${why}`;
      }
      return undefined;
    },
  };
}
