import { runToCompletion, spawnStreaming, type CommandWrapper } from '../agents/spawn.js';
import type { ProcessGroups } from '../agents/process-groups.js';
import type { CheckRun, CheckRunner } from '../core/loop-types.js';

/**
 * The engine's CheckRunner (issue 12): a check is `bash -c COMMAND` in the repository, in its
 * own process group (a test runner's workers die with it at the timeout), its stdout and stderr
 * kept as one tail; git runs to completion with its output whole.
 */

/** What is kept of a check's output while it runs: the end is where test runners say why. */
const KEPT_CHARS = 16_000;

export function checkRunner(options: {
  env: Readonly<Record<string, string | undefined>>;
  processGroups?: ProcessGroups | undefined;
  /** The run's OS sandbox, when on: the checks run where the agent ran (git stays outside). */
  wrap?: CommandWrapper | undefined;
}): CheckRunner {
  return {
    async shell(command, { cwd, timeoutMs, signal }): Promise<CheckRun> {
      let output = '';
      const keep = (text: string): void => {
        output = (output + text).slice(-KEPT_CHARS);
      };
      const result = await spawnStreaming('bash', ['-c', command], {
        cwd,
        // CI=true: test runners run once instead of watching (vitest, jest).
        env: { ...options.env, CI: options.env.CI ?? 'true' },
        timeoutMs,
        signal,
        killGraceMs: 2000,
        processGroups: options.processGroups,
        wrap: options.wrap,
        onLine: (line) => {
          keep(`${line}\n`);
        },
        onStderr: keep,
      });
      const started = result.code === undefined;
      return {
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        output: started ? output : `${output}could not start bash: ${result.code ?? ''}\n`,
      };
    },
    async git(args, cwd) {
      const result = await runToCompletion('git', args, {
        cwd,
        env: options.env,
        timeoutMs: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      return result.exitCode === 0 ? result.stdout : undefined;
    },
  };
}
