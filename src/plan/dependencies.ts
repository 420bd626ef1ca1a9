import { escapeControlCharacters } from '../util/control-chars.js';
import type { JsonPath } from './json-path.js';
import type { TaskListProblem } from './task-list-errors.js';
import type { Story } from './types.js';

/**
 * dependsOn that can never be met: an id no story has, or a cycle (US-001 waits on US-002,
 * which waits on US-001). Either leaves stories that never start, which the loop would only
 * find out after spending iterations; refused at read time with the place to fix.
 */
export function dependencyProblems(
  stories: readonly Story[],
  storiesPath: JsonPath,
  keyOf: (story: Story) => string,
): TaskListProblem[] {
  const byId = new Map(stories.map((story) => [story.id, story]));
  const problems: TaskListProblem[] = [];
  for (const story of stories) {
    story.dependsOn.forEach((id, position) => {
      if (byId.has(id)) return;
      problems.push({
        path: [...storiesPath, story.index, keyOf(story), position],
        message: `${story.id} depends on ${escapeControlCharacters(JSON.stringify(id))}, which is no story's id`,
        hint: 'name an existing story id, or remove the entry',
      });
    });
  }
  if (problems.length > 0) return problems;
  const cycle = findCycle(stories, byId);
  if (cycle === undefined) return [];
  const first = byId.get(cycle[0] ?? '');
  if (first === undefined) return [];
  return [
    {
      path: [...storiesPath, first.index, keyOf(first)],
      message: `dependsOn forms a cycle: ${cycle.join(' → ')}; none of them can ever start`,
      hint: 'remove one of the dependencies in the cycle',
    },
  ];
}

/** The ids along one cycle, first id repeated at the end; undefined when there is none. */
function findCycle(
  stories: readonly Story[],
  byId: ReadonlyMap<string, Story>,
): string[] | undefined {
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (id: string): string[] | undefined => {
    const at = onPath.indexOf(id);
    if (at >= 0) return [...onPath.slice(at), id];
    if (done.has(id)) return undefined;
    onPath.push(id);
    for (const next of byId.get(id)?.dependsOn ?? []) {
      const found = visit(next);
      if (found !== undefined) return found;
    }
    onPath.pop();
    done.add(id);
    return undefined;
  };
  for (const story of stories) {
    const found = visit(story.id);
    if (found !== undefined) return found;
  }
  return undefined;
}
