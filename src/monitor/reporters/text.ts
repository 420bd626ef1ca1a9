import type { LoopEvent, Reporter } from '../../core/events.js';

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
      } iterations${event.resumedAfterIteration > 0 ? ` (resuming after iteration ${event.resumedAfterIteration})` : ''}`;
    case 'iteration_started':
      return `\n▶ iteration ${event.iteration}: ${event.story.id} ${event.story.title}${
        event.model === undefined ? '' : ` [${event.model}]`
      }`;
    case 'agent_tool_use':
      return verbose ? `  · ${event.name} ${event.summary}` : undefined;
    case 'agent_text':
      return verbose ? `  “${oneLine(event.text)}”` : undefined;
    case 'iteration_finished':
      return `  ${event.outcome === 'progress' || event.outcome === 'complete' ? '✓' : '✗'} ${event.outcome}: ${
        event.detail
      } (${(event.durationMs / 1000).toFixed(1)} s${
        event.costUsd === undefined ? '' : `, $${event.costUsd.toFixed(4)}`
      }) — ${event.storiesPassing}/${event.storiesTotal} passing`;
    case 'task_list_restored':
      return `  ⚠ the agent changed the task list beyond passes/notes; restored: ${event.problems.join('; ')}`;
    case 'complete_not_believed':
      return `  ⚠ the agent printed COMPLETE but ${event.openStories.join(', ')} still open: not believed`;
    case 'warning':
      return `  ⚠ ${event.message}`;
    case 'run_finished':
      return `\nralph: ${event.state} — ${event.reason}. ${event.iterations} iterations, ${event.storiesPassing}/${
        event.storiesTotal
      } stories passing, $${event.costUsd.toFixed(4)}`;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
