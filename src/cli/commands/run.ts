import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { createAgent } from '../../agents/registry.js';
import { runLoop } from '../../core/engine.js';
import { runPreflight } from '../../core/preflight.js';
import { systemClock } from '../../safety/clock.js';
import { RalphError } from '../../util/errors.js';
import type { CliContext, SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { loadCommandSettings } from '../settings.js';
import { childRunArgs, detachRun } from './run-background.js';
import { printDryRun } from './run-dry.js';
import { prepareRun, runFlagsToConfig, type RunFlags } from './run-prepare.js';
import { usageLimitPrompt } from './run-ask.js';
import { startRun } from './run-start.js';
import { runInTmux } from './run-tmux.js';

export function runCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('run')
    .description(
      'Run the loop: one fresh agent process per iteration, one story each (priority, then id,\n' +
        'then file order), until every story passes, --max-iterations is reached, or you press\n' +
        'Ctrl+C (state PAUSED; the next `ralph run` resumes with the iteration count and cost).\n' +
        'Preflight (ralph validate) runs first. Safety: a circuit breaker, an hourly rate limit,\n' +
        'cost budgets, retries of transient API errors, and waiting out usage limits (safety.json\n' +
        'keeps their state across runs). Exit 0 complete; 1 max iterations, circuit breaker,\n' +
        'budget or error; 2 invalid input, a fatal agent error (not logged in, …) or a usage\n' +
        'limit with --on-usage-limit exit; 130 interrupted.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('-n, --max-iterations <n>', 'most iterations in this run (default 20)', parseCount)
    .option(
      '-t, --timeout <minutes>',
      'minutes one iteration may take before the agent is killed (default 15)',
      parsePositive,
    )
    .option(
      '-p, --prompt <file>',
      'prompt template (default: DIR/prompt.md, else the built-in one)',
    )
    .option(
      '-m, --model <model>',
      'model for every story without its own (opus, sonnet, haiku or a full name)',
    )
    .addOption(
      new Option(
        '--profile <profile>',
        'model profile: quality (opus), balanced (sonnet), budget (haiku)',
      ).choices(['quality', 'balanced', 'budget'] as const),
    )
    .option('--pause <seconds>', 'seconds to wait between iterations (default 2)', parseNonNegative)
    .option(
      '--idle-timeout <minutes>',
      'minutes the agent may print nothing before it is killed (default 5; 0: off)',
      parseNonNegative,
    )
    .option(
      '--max-cost <usd>',
      'end the run (exit 1) once it has cost this many US dollars',
      parsePositive,
    )
    .addOption(
      new Option(
        '--on-usage-limit <action>',
        'on a usage limit: wait for the reset, exit (exit code 2), or ask (default wait)',
      ).choices(['wait', 'exit', 'ask'] as const),
    )
    .option(
      '--rate-limit <calls>',
      'most agent calls in any hour; ralph waits at the limit (default 100; 0: off)',
      parseWhole,
    )
    .option('--reset-breaker', 'close the circuit breaker (after fixing what opened it) and run')
    .addOption(new Option('--agent <agent>', 'the agent CLI to run').choices(['claude'] as const))
    .option(
      '--dangerously-skip-permissions',
      'let the agent run every tool without asking (passed to Claude Code)',
    )
    .option('--skip-preflight', 'start without the preflight checks (use with care)')
    .option('--dry-run', 'print the plan (next story, model, argv, prompt size) and run nothing')
    .option('--no-archive', 'do not copy the finished feature into DIR/archive/ on completion')
    .option('-v, --verbose', "show the agent's tool calls and messages as they happen")
    .option('--json', 'print one LoopEvent per line on stdout instead of text')
    .option(
      '--detach',
      'run in the background (output in DIR/logs/run.log) and return; follow with ralph attach',
    )
    .option('--monitor', 'run in a tmux session beside `ralph monitor` (plain run without tmux)')
    .action(async (dir, options, command) => {
      const json = options.json === true;
      try {
        const flags: RunFlags = {
          maxIterations: options.maxIterations,
          timeoutMinutes: options.timeout,
          model: options.model,
          profile: options.profile,
          pauseSeconds: options.pause,
          agent: options.agent,
          dangerouslySkipPermissions: options.dangerouslySkipPermissions,
          idleTimeoutMinutes: options.idleTimeout,
          maxCostUsd: options.maxCost,
          usageLimitAction: options.onUsageLimit,
          callsPerHour: options.rateLimit,
        };
        const settings = await loadCommandSettings(context, runFlagsToConfig(flags));
        const agent = createAgent(settings.config.agent, {
          command: settings.config.agents.claude.command ?? 'claude',
          env: context.env,
        });
        // Preflight's warnings (protected branch, a story the spec does not list, …) are shown
        // once the run starts, through its event stream.
        const preflightWarnings: string[] = [];
        if (options.skipPreflight !== true) {
          const report = await runPreflight({
            cwd: context.cwd,
            dir,
            env: context.env,
            protectedBranches: settings.config.protectedBranches,
            agent,
          });
          if (!report.ok) {
            const failed = report.checks.filter((each) => each.status === 'fail');
            const lines = failed.flatMap((check) => [
              `  ✗ ${check.message}`,
              ...check.details.map((detail) => `      - ${detail}`),
              ...(check.hint === undefined ? [] : [`      hint: ${check.hint}`]),
            ]);
            throw new RalphError('PREFLIGHT_FAILED', `preflight failed:\n${lines.join('\n')}`, {
              hint: 'fix the errors above (all checks: ralph validate), or pass --skip-preflight',
            });
          }
          // A missing progress.txt or spec.md is normal for many loops: validate says so, not run.
          const worthSaying = report.checks.filter(
            (each) => each.status === 'warn' && each.name !== 'files',
          );
          for (const check of worthSaying)
            preflightWarnings.push(
              check.hint === undefined ? check.message : `${check.message} (${check.hint})`,
            );
        }
        const prepared = await prepareRun({
          context,
          dir,
          settings,
          promptFile: options.prompt,
          resetBreaker: options.resetBreaker,
        });
        const saysProtected = prepared.warnings.some((each) => each.includes('protected branch'));
        prepared.warnings.push(
          ...preflightWarnings.filter(
            (each) => !(saysProtected && each.startsWith('On protected branch')),
          ),
        );
        if (options.dryRun === true) {
          await printDryRun(context, prepared, agent, json);
          return;
        }
        if (options.detach === true || options.monitor === true) {
          const args = childRunArgs(command, prepared.options.loopDir);
          const { loopDir } = prepared.options;
          if (options.monitor === true) {
            if (await runInTmux(context, loopDir, args, { attach: options.detach !== true }))
              return;
          }
          if (options.detach === true) {
            setExitCode(await detachRun(context, loopDir, args, json));
            return;
          }
        }
        const result = await startRun(context, prepared, agent, {
          json,
          verbose: options.verbose === true,
          archive: options.archive,
          runLoop,
          clock: systemClock,
          askUsageLimit: usageLimitPrompt(),
          notify: settings.config.notify,
          hooks: settings.config.hooks,
        });
        setExitCode(result.exitCode);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

function parseCount(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw invalid(value, 'a whole number ≥ 1');
  return number;
}

function parsePositive(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw invalid(value, 'a number > 0');
  return number;
}

function parseWhole(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw invalid(value, 'a whole number ≥ 0');
  return number;
}

function parseNonNegative(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) throw invalid(value, 'a number ≥ 0');
  return number;
}

function invalid(value: string, what: string): InvalidArgumentError {
  return new InvalidArgumentError(`expected ${what}, got ${JSON.stringify(value)}`);
}
