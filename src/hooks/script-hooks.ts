import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnStreaming } from '../agents/spawn.js';
import { isFile, loopPaths, type HookPoint } from '../state/paths.js';

/**
 * The person's hook scripts: `DIR/hooks/<point>.sh`, then every `DIR/hooks/<point>.d/*.sh` in
 * name order (byte order, as `LC_ALL=C ls` sorts: `10-a.sh` before `20-b.sh`), so several tools
 * can each drop in a script without editing one shared file. Each runs with bash (as the Ralph
 * Hybrid spec has them, so no executable bit is needed) in the repository, with ralph's
 * environment plus the RALPH_* variables of the point. Each gets a time limit and its whole
 * process group is killed past it. What a hook prints goes to `output`, line by line; a failure
 * comes back as a sentence for a warning, never as an exception: a hook must not stop the loop,
 * nor the hooks after it.
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
      const scripts = await hookScripts(options.loopDir, point);
      if (scripts.length === 0) return undefined;
      const urgentMs = options.urgentMs ?? URGENT_TIMEOUT_MS;
      // Ctrl+C while the point's hooks run: they get urgentMs more together, then the running
      // one's group is killed and the rest are not started.
      const cutOff = new AbortController();
      let grace: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        grace = setTimeout(() => {
          cutOff.abort();
        }, urgentMs);
      };
      if (signal?.aborted === true && !urgent) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
      const problems: string[] = [];
      try {
        for (const script of scripts) {
          if (cutOff.signal.aborted) break;
          const timeoutMs = urgent
            ? Math.min(options.timeoutMs || urgentMs, urgentMs)
            : options.timeoutMs;
          const problem = await runScript(options, script.file, point, variables, {
            timeoutMs,
            urgentMs,
            signal: cutOff.signal,
          });
          if (problem !== undefined)
            problems.push(script.name === undefined ? problem : `${script.name}: ${problem}`);
        }
      } finally {
        signal?.removeEventListener('abort', onAbort);
        if (grace !== undefined) clearTimeout(grace);
      }
      return problems.length === 0 ? undefined : problems.join('; ');
    },
  };
}

/**
 * The scripts of a point, in the order they run. `name` is how a problem names one; undefined
 * for `<point>.sh` itself, which "hook <point>" already names.
 */
export async function hookScripts(
  loopDir: string,
  point: HookPoint,
): Promise<{ file: string; name: string | undefined }[]> {
  const paths = loopPaths(loopDir);
  const scripts: { file: string; name: string | undefined }[] = [];
  if (await isFile(paths.hook(point))) scripts.push({ file: paths.hook(point), name: undefined });
  const folder = join(paths.hooksDir, `${point}.d`);
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names.filter((each) => each.endsWith('.sh') && !each.startsWith('.')).sort()) {
    const file = join(folder, name);
    if (await isFile(file)) scripts.push({ file, name: `${point}.d/${name}` });
  }
  return scripts;
}

/** One script to its end; what went wrong, or undefined. */
async function runScript(
  options: ScriptHookOptions,
  file: string,
  point: HookPoint,
  variables: Record<string, string>,
  limits: { timeoutMs: number; urgentMs: number; signal: AbortSignal },
): Promise<string | undefined> {
  const { timeoutMs, urgentMs } = limits;
  let lastError = '';
  let partial = '';
  const errorLines = (text: string) => {
    for (const line of text.split(/\r?\n/)) {
      if (line === '') continue;
      lastError = line;
      options.output(point, line);
    }
  };
  const result = await spawnStreaming('bash', [file], {
    cwd: options.cwd,
    env: { ...options.env, ...variables },
    timeoutMs,
    signal: limits.signal,
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
  if (result.isCanceled) return `stopped ${urgentMs / 1000} s after the run was interrupted`;
  if (result.code !== undefined) return `could not start bash (${result.code}) for ${file}`;
  if (result.timedOut) return `killed after ${timeoutMs / 1000} s (hooks.timeoutSeconds)`;
  if (result.signal !== undefined) return `ended by ${result.signal}`;
  if (result.exitCode !== 0) {
    const why = lastError === '' ? '' : `: ${lastError}`;
    return `exit code ${String(result.exitCode)}${why}`;
  }
  return undefined;
}
