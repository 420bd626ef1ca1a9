import { Command } from '@commander-js/extra-typings';
import { relative } from 'node:path';
import { createAgent } from '../../agents/registry.js';
import type { AgentProbe } from '../../agents/types.js';
import { runPreflight, type PreflightReport } from '../../core/preflight.js';
import type { Config } from '../../state/config-schema.js';
import { defaultOf } from '../../state/config-facts.js';
import { sandboxPreflight } from '../../run/sandbox.js';
import { writeLine, writeStyledLine, type CliContext, type SetExitCode } from '../context.js';
import { ExitCode, reportError } from '../exit.js';
import { markLine, useColor, writeJson } from '../output.js';
import { loadCommandSettings } from '../settings.js';
import type { HybridMapping } from '../../state/hybrid-config.js';
import { printTemplateHint } from './templates.js';
import { promptCheck } from './validate-prompt.js';

export function validateCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('validate')
    .description(
      'Run the preflight checks of `ralph run` without starting anything: git branch, loop\n' +
        'directory, required files, task-list schema, spec.md structure, spec.md ↔ task-list sync,\n' +
        'amendments, the agent CLI and its version, no nesting inside a Claude Code session, and\n' +
        "the next story's prompt size against context.tokenBudget.\n" +
        'Exit 0 when no check fails (warnings allowed), 2 otherwise.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--json', 'print the report as JSON: {ok, branch, loopDir, checks[]}')
    .action(async (dir, options) => {
      try {
        const { config, mapped } = await loadCommandSettings(context);
        const preflight = await runPreflight({
          cwd: context.cwd,
          dir,
          env: context.env,
          protectedBranches: config.protectedBranches,
          agent: agentProbeFor(config, context),
          sandbox: sandboxPreflight(config.sandbox, context.env),
          user: {
            uid: process.getuid?.(),
            skipPermissions: config.agents.claude.dangerouslySkipPermissions,
          },
        });
        const report = withHybridMapping(preflight, mapped, context.cwd);
        const prompt = await promptCheck(report, config, context.cwd);
        if (prompt !== undefined) report.checks.push(prompt);
        if (options.json === true) {
          writeJson(context, {
            ok: report.ok,
            branch: report.branch,
            loopDir: report.loopDir,
            checks: report.checks,
          });
        } else {
          printReport(report, context);
          await printTemplateHint(context, report.loopDir);
        }
        setExitCode(report.ok ? ExitCode.ok : ExitCode.invalidInput);
      } catch (error) {
        setExitCode(reportError(error, context, options.json === true));
      }
    });
}

function printReport(report: PreflightReport, context: CliContext): void {
  const color = useColor(context);
  const out = context.stdout;
  writeLine(out, `Preflight checks for branch: ${report.branch ?? '(none)'}`);
  writeLine(out, `Loop directory: ${displayDir(context.cwd, report.loopDir)}`);
  writeLine(out);
  for (const check of report.checks) {
    writeStyledLine(out, markLine(check.status, check.message, color));
    for (const detail of check.details) writeLine(out, `    - ${detail}`);
    if (check.hint !== undefined && check.status !== 'pass')
      writeLine(out, `    hint: ${check.hint}`);
  }
  writeLine(out);
  const failures = report.checks.filter((check) => check.status === 'fail').length;
  const warnings = report.checks.filter((check) => check.status === 'warn').length;
  if (failures === 0) {
    writeLine(
      out,
      warnings === 0
        ? 'All checks passed. Ready to run.'
        : `No errors, ${plural(warnings, 'warning')}. Ready to run.`,
    );
  } else {
    writeLine(
      out,
      `${plural(failures, 'check')} failed${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}. Fix the errors above before running.`,
    );
  }
}

/** A line saying which Ralph Hybrid settings were read as which of ralph's, when any were. */
function withHybridMapping(
  report: PreflightReport,
  mapped: readonly HybridMapping[],
  cwd: string,
): PreflightReport {
  if (mapped.length === 0) return report;
  const check = {
    name: 'hybrid-config',
    status: 'pass' as const,
    message: `Ralph Hybrid settings read as ralph's (${mapped.length})`,
    details: mapped.map((each) => {
      const file = relative(cwd, each.file);
      return `${file.startsWith('..') ? each.file : file}: ${each.from} → ${each.to}`;
    }),
    hint: undefined,
  };
  return { ...report, checks: [check, ...report.checks] };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function displayDir(cwd: string, dir: string): string {
  const shown = relative(cwd, dir);
  if (shown === '') return './';
  return shown.startsWith('..') ? dir : `${shown}/`;
}

/**
 * The agent ralph would run, as configured: RALPH_CLAUDE_BIN / agents.claude.command / `claude` on PATH.
 * Here, not in settings.ts, which every command loads: only validate probes the agent.
 */
function agentProbeFor(config: Config, context: CliContext): AgentProbe {
  return createAgent(config.agent, {
    command: config.agents.claude.command ?? defaultOf('agents.claude.command'),
    env: context.env,
  });
}
