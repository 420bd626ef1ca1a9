import { Command, Option } from '@commander-js/extra-typings';
import { planRun } from '../../run/plan.js';
import { homeDirOf, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';
import { choicesOf, parseSetting, withDefault } from '../setting-option.js';
import { childRunArgs, detachRun } from './run-background.js';
import { printDryRun } from './run-dry.js';
import { runInTerminal } from './run-terminal.js';
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
    .option(
      '-n, --max-iterations <n>',
      withDefault('most iterations in this run', 'maxIterations'),
      parseSetting('maxIterations'),
    )
    .option(
      '-t, --timeout <minutes>',
      withDefault('minutes one iteration may take before the agent is killed', 'timeoutMinutes'),
      parseSetting('timeoutMinutes'),
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
      ).choices(choicesOf('profile')),
    )
    .option(
      '--pause <seconds>',
      withDefault('seconds to wait between iterations', 'pauseSeconds'),
      parseSetting('pauseSeconds'),
    )
    .option(
      '--idle-timeout <minutes>',
      withDefault('minutes the agent may print nothing before it is killed', 'idleTimeoutMinutes'),
      parseSetting('idleTimeoutMinutes'),
    )
    .option(
      '--max-cost <usd>',
      'end the run (exit 1) once it has cost this many US dollars',
      parseSetting('budget.maxCostUsd'),
    )
    .addOption(
      new Option(
        '--on-usage-limit <action>',
        withDefault(
          'on a usage limit: wait for the reset, exit (exit code 2), or ask',
          'usageLimit.action',
        ),
      ).choices(choicesOf('usageLimit.action')),
    )
    .option(
      '--rate-limit <calls>',
      withDefault(
        'most agent calls in any hour; ralph waits at the limit',
        'rateLimit.callsPerHour',
      ),
      parseSetting('rateLimit.callsPerHour'),
    )
    .option('--reset-breaker', 'close the circuit breaker (after fixing what opened it) and run')
    .addOption(new Option('--agent <agent>', 'the agent CLI to run').choices(choicesOf('agent')))
    .option(
      '--dangerously-skip-permissions',
      'let the agent run every tool without asking (passed to Claude Code)',
    )
    .option('--skip-preflight', 'start without the preflight checks (use with care)')
    .option('--sandbox', 'run the agent inside the OS sandbox (bubblewrap; config sandbox.enabled)')
    .option('--no-sandbox', 'run the agent without the OS sandbox, whatever config says')
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
        const plan = await planRun({
          dir,
          cwd: context.cwd,
          env: context.env,
          homeDir: homeDirOf(context),
          maxIterations: options.maxIterations,
          timeoutMinutes: options.timeout,
          promptFile: options.prompt,
          model: options.model,
          profile: options.profile,
          pauseSeconds: options.pause,
          idleTimeoutMinutes: options.idleTimeout,
          maxCostUsd: options.maxCost,
          onUsageLimit: options.onUsageLimit,
          callsPerHour: options.rateLimit,
          resetBreaker: options.resetBreaker,
          dangerouslySkipPermissions: options.dangerouslySkipPermissions,
          skipPreflight: options.skipPreflight,
          sandbox: options.sandbox,
          archive: options.archive,
          ...(options.agent === undefined ? {} : { agent: { id: options.agent } }),
        });
        if (options.dryRun === true) {
          await printDryRun(context, plan, json);
          return;
        }
        if (options.detach === true || options.monitor === true) {
          const args = childRunArgs(command, plan.options.loopDir);
          const { loopDir } = plan.options;
          if (options.monitor === true) {
            if (await runInTmux(context, loopDir, args, { attach: options.detach !== true }))
              return;
          }
          if (options.detach === true) {
            setExitCode(await detachRun(context, loopDir, args, json));
            return;
          }
        }
        const result = await runInTerminal(context, plan, {
          json,
          verbose: options.verbose === true,
        });
        setExitCode(result.exitCode);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}
