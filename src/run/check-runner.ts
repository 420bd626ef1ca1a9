import { runToCompletion, spawnStreaming, type CommandWrapper } from '../agents/spawn.js';
import type { ProcessGroups } from '../agents/process-groups.js';
import type { CheckRun, CheckRunner } from '../core/loop-types.js';
import { testCounter } from '../core/test-counts.js';

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
      const counter = testCounter();
      let partial = '';
      const result = await spawnStreaming('bash', ['-c', command], {
        cwd,
        env: checkEnvironment(options.env),
        timeoutMs,
        signal,
        killGraceMs: 2000,
        processGroups: options.processGroups,
        wrap: options.wrap,
        onLine: (line) => {
          keep(`${line}\n`);
          counter.line(line);
        },
        // jest prints its summary on stderr, which comes in chunks: counted by whole lines.
        onStderr: (text) => {
          keep(text);
          const lines = (partial + text).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) counter.line(line);
        },
      });
      counter.line(partial);
      const tests = counter.result();
      const started = result.code === undefined;
      return {
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        durationMs: result.durationMs,
        output: started ? output : `${output}could not start bash: ${result.code ?? ''}\n`,
        ...(tests === undefined ? {} : { tests }),
      };
    },
    async git(args, cwd) {
      const result = await runToCompletion('git', [...SAFE_GIT, ...args], {
        cwd,
        env: gitEnvironment(options.env),
        timeoutMs: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      return result.exitCode === 0 ? result.stdout : undefined;
    },
  };
}

/**
 * Every git call ralph makes to judge a claim runs none of the programs a repository's config can
 * name (attack 43: `core.fsmonitor` ran an agent's script, which started a process that swapped
 * the test files while the checks ran): no fsmonitor, no hooks, no pager, no external diff or
 * textconv, no credential prompt.
 */
export const SAFE_GIT: readonly string[] = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
  '-c',
  'diff.external=',
  '-c',
  'core.askPass=',
  '-c',
  'credential.helper=',
];

export function gitEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const kept = Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !['GIT_EXTERNAL_DIFF', 'GIT_PAGER', 'PAGER', 'GIT_SSH_COMMAND'].includes(name),
    ),
  );
  return { ...kept, GIT_ASKPASS: '', SSH_ASKPASS: '', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' };
}

/**
 * The person's environment as it is, without ralph's own variables: code under test cannot tell
 * ralph's checks from the person's own run and special-case them. CI is left as the person has
 * it (a test that passes only when CI=true passes for ralph only if the person's shell says so
 * too); test runners still run once, as their stdin is no terminal.
 */
export function checkEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('RALPH_')));
}
