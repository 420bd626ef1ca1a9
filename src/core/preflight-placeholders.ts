import { basename } from 'node:path';
import { placeholderFields } from '../plan/placeholders.js';
import type { TaskListDocument } from '../plan/read.js';
import type { Spec } from '../plan/spec.js';
import type { PreflightCheck } from './preflight-check.js';

/**
 * Fails the preflight while stories still hold the template's example text (see
 * plan/placeholders.ts), naming each story, the file and the field, so that `ralph init`
 * followed by `ralph run` cannot send an agent off to build a placeholder.
 */
export function checkPlaceholders(
  document: TaskListDocument | undefined,
  spec: Spec | undefined,
  checks: PreflightCheck[],
): void {
  const details: string[] = [];
  const stories = new Set<string>();
  if (document !== undefined) {
    const file = basename(document.file);
    for (const story of document.taskList.stories) {
      const fields = placeholderFields(story);
      if (fields.length === 0) continue;
      stories.add(story.id);
      details.push(`${story.id} (${file}): ${fields.join(', ')}`);
    }
  }
  if (spec !== undefined) {
    for (const story of spec.stories) {
      const fields = placeholderFields(story);
      if (fields.length === 0) continue;
      stories.add(story.id);
      details.push(`${story.id} (spec.md line ${story.line}): ${fields.join(', ')}`);
    }
  }
  if (details.length === 0) return;
  const count = stories.size;
  checks.push({
    name: 'placeholders',
    status: 'fail',
    message: `${count} ${count === 1 ? 'story still holds' : 'stories still hold'} the template's example text`,
    details,
    hint: 'write your own title, description and acceptance criteria for these stories in spec.md and the task list (or `ralph import` a PRD you already have)',
  });
}
