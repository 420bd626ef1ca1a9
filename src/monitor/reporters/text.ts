import type { LoopEvent, Reporter, Spend } from '../../core/events.js';
import { retryText, windowLines } from '../view/usage-text.js';

/** Readable progress on a terminal: one line per step, agent activity only with --verbose. */
export function textReporter(
  write: (line: string) => void,
  options: { verbose: boolean },
): Reporter {
  return {
    onEvent(event: LoopEvent) {
      const line = render(event, options.verbose);
      if (line !== undefined) write(line);
    },
  };
}

function render(event: LoopEvent, verbose: boolean): string | undefined {
  switch (event.type) {
    case 'run_started':
      return `ralph: ${event.feature}: ${event.storiesPassing}/${event.storiesTotal} stories passing, up to ${
        event.maxIterations
      } iterations${event.resumedAfterIteration > 0 ? ` (resuming after iteration ${event.resumedAfterIteration})` : ''}${
        event.breaker !== undefined && event.breaker.state !== 'CLOSED'
          ? `; circuit breaker ${event.breaker.state}`
          : ''
      }`;
    case 'iteration_started':
      return `\n▶ iteration ${event.iteration}${event.attempt > 1 ? ` (attempt ${event.attempt})` : ''}: ${
        event.story.id
      } ${event.story.title}${event.model === undefined ? '' : ` [${event.model}]`}`;
    case 'agent_tool_use':
      return verbose ? `  · ${event.name} ${event.summary}` : undefined;
    case 'agent_text':
      return verbose ? `  “${oneLine(event.text)}”` : undefined;
    case 'iteration_finished':
      return `  ${event.outcome === 'progress' || event.outcome === 'complete' ? '✓' : '✗'} ${event.outcome}: ${
        event.detail
      } (${(event.durationMs / 1000).toFixed(1)} s${
        event.costUsd === undefined ? '' : `, $${event.costUsd.toFixed(4)}`
      }${
        event.runSpend === undefined ? '' : `; run $${event.runSpend.costUsd.toFixed(4)}`
      }) — ${event.storiesPassing}/${event.storiesTotal} passing${classified(event)}`;
    case 'breaker_changed':
      return `  ⚡ circuit breaker ${event.from} → ${event.to}: ${event.reason}`;
    case 'wait_started':
      return `  ⏸ waiting ${duration(event.durationMs)} (until ${event.until}): ${event.detail}`;
    case 'wait_progress':
      return verbose ? `  ⏸ ${duration(event.remainingMs)} left (until ${event.until})` : undefined;
    case 'wait_finished':
      return event.interrupted ? `  ⏹ wait interrupted` : undefined;
    case 'usage_limit':
      return `  ⚠ usage limit: ${event.message}${
        event.resetAt === undefined ? ' (reset time unknown)' : ` (resets ${event.resetAt})`
      } → ${event.action}${event.answered === false ? ' (no answer)' : ''}`;
    case 'budget_exceeded':
      return `  ⚠ budget: ${event.message}`;
    case 'task_list_restored':
      return event.atRunStart === true
        ? `  ⚠ the task list was left torn when ralph was stopped in iteration ${event.iteration}; restored from its snapshot: ${event.problems.join('; ')}${event.kept.length > 0 ? ` (kept: ${event.kept.join(', ')})` : ''}`
        : `  ⚠ the agent changed the task list beyond passes/notes; restored: ${event.problems.join('; ')}`;
    case 'complete_not_believed':
      return `  ⚠ the agent printed COMPLETE but ${event.openStories.join(', ')} still open: not believed`;
    case 'story_rejected':
      return `  ✗ ${event.story.id} rejected by ralph: ${event.reason}; passes set back to false`;
    case 'story_verified':
      return `  ✓ ${event.story.id} verified by ralph: ${
        event.checks.map((check) => check.command ?? check.name ?? check.kind).join(', ') ||
        'no checks configured'
      }`;
    case 'agent_retry':
      // Shown without --verbose: a run with the network down is otherwise silent for minutes.
      return `  ↻ Claude Code is ${retryText(event)}`;
    case 'usage_windows': {
      const lines = windowLines(event.windows, new Date(event.at), event.pace);
      return lines.length === 0 ? undefined : `  usage: ${lines.join('; ')}`;
    }
    case 'warning':
      return `  ⚠ ${event.message}`;
    case 'run_finished':
      return `\nralph: ${event.state} — ${event.reason}. ${event.iterations} iterations, ${event.storiesPassing}/${
        event.storiesTotal
      } stories passing, $${event.costUsd.toFixed(4)}${
        event.tokens === undefined ? '' : `, ${totalTokens(event.tokens)} tokens`
      }${event.hint === undefined ? '' : `\n  hint: ${event.hint}`}`;
  }
}

function classified(event: Extract<LoopEvent, { type: 'iteration_finished' }>): string {
  if (event.classification === undefined || event.classification === 'none') return '';
  const what = event.classification.replace('_', ' ');
  return `\n    ${what}${event.willRetry === true ? ' → trying again' : ''}: ${event.classificationWhy ?? ''}`;
}

function totalTokens(tokens: Spend['tokens']): number {
  return (
    tokens.inputTokens +
    tokens.outputTokens +
    tokens.cacheReadInputTokens +
    tokens.cacheCreationInputTokens
  );
}

/** "4h 05m", "12m 30s", "8s". */
export function duration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
