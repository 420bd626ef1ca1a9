import { Command } from '@commander-js/extra-typings';
import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { summariseLog } from '../../agents/claude/inspect-log.js';
import { detectCompletion } from '../../core/completion.js';
import { readEvidence, type EvidenceEntry } from '../../state/evidence-log.js';
import { RalphError } from '../../util/errors.js';
import { classifyLog } from './inspect-classify.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { userStateDir } from '../../state/user-state.js';
import { reportError } from '../exit.js';
import { writeJson } from '../output.js';

export function inspectCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('inspect')
    .description(
      "Summarise one iteration's log (logs/iteration-N-attempt-M.jsonl): session id, model,\n" +
        'turns, cost, tokens, error state, tool calls, the final message and the completion\n' +
        'signal ralph found in it, and how the safety policies classify the run (usage limit with\n' +
        'its reset time, transient, fatal, timeout, or none) and why — "why did iteration 7 end\n' +
        'like that?" — and, for a log in a loop directory, how ralph verified what the iteration\n' +
        'claimed (evidence.jsonl).',
    )
    .argument('<log>', 'an iteration log file (Claude Code stream-json)')
    .option('--json', 'print the summary as JSON')
    .action(async (log, options) => {
      const json = options.json === true;
      try {
        const file = resolve(context.cwd, log);
        if ((await stat(file).catch(() => undefined))?.isFile() !== true) {
          throw new RalphError('USAGE', `no log file at ${file}`, {
            hint: 'logs are in the loop directory: logs/iteration-N-attempt-M.jsonl',
          });
        }
        const summary = await summariseLog(file);
        const result = summary.result;
        const report = {
          file,
          sessionId: summary.sessionId ?? null,
          model: summary.model ?? null,
          lines: summary.lineCount,
          unknownLines: summary.unknownLines,
          resultLine: result !== undefined,
          isError: result?.isError ?? null,
          subtype: result?.subtype ?? null,
          apiErrorStatus: result?.apiErrorStatus ?? null,
          numTurns: result?.numTurns ?? null,
          costUsd: result?.costUsd ?? null,
          usage: result?.usage ?? null,
          durationMs: result?.durationMs ?? null,
          permissionDenials: result?.permissionDenials ?? [],
          toolCalls: summary.toolCalls,
          toolCounts: summary.toolCounts,
          rateLimits: summary.rateLimits,
          finalText: summary.finalText ?? null,
          completionSignal: detectCompletion(summary.finalText) ?? null,
          classification: await classifyLog(file, summary),
          verification: await iterationEvidence(
            file,
            userStateDir(context.env, homeDirOf(context)),
          ),
        };
        if (json) {
          writeJson(context, report);
          return;
        }
        const out = context.stdout;
        const row = (label: string, value: string): void => {
          writeLine(out, `${label.padEnd(16)}${value}`);
        };
        row('Log:', file);
        row('Session:', report.sessionId ?? '(unknown)');
        row('Model:', report.model ?? '(unknown)');
        row(
          'Result:',
          result === undefined
            ? 'no result line (the agent was cut off or killed)'
            : `${result.isError ? 'error' : 'ok'} (${result.subtype ?? '?'}${
                result.apiErrorStatus === undefined ? '' : `, API ${result.apiErrorStatus}`
              })`,
        );
        row('Turns:', String(report.numTurns ?? '?'));
        row('Cost:', report.costUsd === null ? '?' : `$${report.costUsd.toFixed(4)}`);
        if (result?.usage !== undefined) {
          const usage = result.usage;
          row(
            'Tokens:',
            `${usage.inputTokens} in, ${usage.outputTokens} out, ${usage.cacheReadInputTokens} cache read, ${usage.cacheCreationInputTokens} cache write`,
          );
        }
        row(
          'Lines:',
          `${report.lines}${report.unknownLines > 0 ? ` (${report.unknownLines} not stream-json)` : ''}`,
        );
        const counts = Object.entries(report.toolCounts).map(
          ([name, count]) => `${name} ×${count}`,
        );
        row('Tool calls:', counts.length === 0 ? 'none' : counts.join(', '));
        for (const call of summary.toolCalls.slice(-15))
          writeLine(out, `  · ${call.name} ${call.summary}`);
        if (report.permissionDenials.length > 0) {
          row('Denied:', report.permissionDenials.map((denial) => denial.toolName).join(', '));
        }
        const rejected = summary.rateLimits.filter((limit) => limit.status === 'rejected');
        if (rejected.length > 0)
          row('Usage limit:', `rejected (${rejected.at(-1)?.rateLimitType ?? '?'})`);
        row('Signal:', report.completionSignal ?? 'none in the final message');
        const verdict = report.classification;
        row(
          'Classified:',
          `${verdict.kind.replace('_', ' ')}${verdict.resetAt === null ? '' : ` (resets ${verdict.resetAt})`} — ${verdict.why}`,
        );
        if (verdict.hint !== null) row('', `hint: ${verdict.hint}`);
        if (verdict.basis === 'log only') {
          row('', '(from the log alone: no events.jsonl entry gave the exit code)');
        }
        for (const entry of report.verification) {
          const what = entry.command ?? entry.name ?? entry.kind;
          const how =
            entry.exitCode === undefined
              ? entry.timedOut === true
                ? 'timed out'
                : ''
              : `exit ${entry.exitCode}`;
          row(
            'Verified:',
            `${entry.storyId} ${entry.verdict}: ${entry.kind} ${what}${how === '' ? '' : ` (${how})`}`,
          );
        }
        writeLine(out, 'Final message:');
        writeLine(out, (report.finalText ?? '(none)').replace(/^/gm, '  '));
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

/** The checks ralph ran on what the log's iteration claimed: logs/ sits in the loop directory. */
async function iterationEvidence(file: string, stateDir: string): Promise<EvidenceEntry[]> {
  const iteration = /^iteration-(\d+)-attempt-\d+\.jsonl$/.exec(basename(file))?.[1];
  if (iteration === undefined) return [];
  const entries = await readEvidence(dirname(dirname(file)), stateDir).catch(() => []);
  return entries.filter((entry) => entry.iteration === Number(iteration));
}
