import { extname } from 'node:path';
import { RalphError } from '../../util/errors.js';
import { parseTaskList } from '../read.js';
import { storyIdProblem } from '../story-id.js';
import { importJson } from './json.js';
import { importMarkdown } from './markdown.js';
import type { ImportedPlan, ImportedStory } from './story-fields.js';

/**
 * `ralph import`: a PRD written elsewhere (Markdown or JSON) → a ralph-hybrid prd.json. The
 * result is checked with the same reader `ralph validate` uses before anyone writes it, so an
 * import that would not validate fails here with nothing written.
 */

export type ImportFormat = 'markdown' | 'json';

export interface ImportResult {
  format: ImportFormat;
  style: string;
  /** The prd.json text, ending in a newline. */
  text: string;
  stories: number;
  passing: number;
  warnings: string[];
}

const STYLES_HINT =
  'ralph import reads Markdown with story headings (### STORY-001: …, ### US-001: …, ### Task 1: …) ' +
  'or a checklist (- [ ] …), and JSON with userStories, stories, features, requirements or tasks';

export function importPlan(
  bytes: Uint8Array,
  file: string,
  options: { format?: ImportFormat | undefined; now: Date },
): ImportResult {
  const text = refuseBinary(bytes, file);
  const format = options.format ?? detectFormat(file, text);
  const plan = format === 'json' ? importJson(text, file) : importMarkdown(text);
  if (plan.stories.length === 0) {
    throw new RalphError('INVALID_TASK_LIST', `${file}: no tasks found, nothing to import`, {
      location: { file },
      hint: `${STYLES_HINT}; nothing was written`,
    });
  }
  const stories = finishStories(plan);
  const prd = {
    description: plan.description ?? plan.title ?? `Imported from ${file}`,
    createdAt: options.now.toISOString(),
    userStories: stories.map((story) => ({
      id: story.id,
      title: story.title,
      description: story.description,
      acceptanceCriteria: story.acceptanceCriteria,
      priority: story.priority,
      passes: story.passes,
      ...(story.dependsOn.length > 0 ? { dependsOn: story.dependsOn } : {}),
      notes: story.notes ?? '',
      ...(story.amendment === undefined ? {} : { amendment: story.amendment }),
    })),
  };
  const output = `${JSON.stringify(prd, null, 2)}\n`;
  // The same reader validate uses: an id or dependency it refuses fails the import, not the run.
  parseTaskList(output, 'prd.json');
  return {
    format,
    style: plan.style,
    text: output,
    stories: stories.length,
    passing: stories.filter((story) => story.passes).length,
    warnings: plan.warnings,
  };
}

function refuseBinary(bytes: Uint8Array, file: string): string {
  const head = Buffer.from(bytes.subarray(0, 8192));
  const refuse = (what: string, hint: string): never => {
    throw new RalphError('INVALID_TASK_LIST', `${file} is ${what}: ralph import reads text`, {
      location: { file },
      hint: `${hint}; nothing was written`,
    });
  };
  if (head.subarray(0, 5).toString('latin1') === '%PDF-')
    refuse(
      'a PDF',
      'export the PRD as Markdown (or copy its text into a .md file) and import that',
    );
  if (head.includes(0)) refuse('a binary file', STYLES_HINT);
  const text = Buffer.from(bytes).toString('utf8');
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(Buffer.from(bytes)))
    refuse('not UTF-8 text', 'save it as UTF-8');
  if (text.trim() === '') refuse('empty', STYLES_HINT);
  return text;
}

function detectFormat(file: string, text: string): ImportFormat {
  const extension = extname(file).toLowerCase();
  if (extension === '.json') return 'json';
  if (['.md', '.markdown', '.mdx', '.txt'].includes(extension)) return 'markdown';
  return /^\s*[[{]/.test(text.replace(/^\uFEFF/, '')) ? 'json' : 'markdown';
}

type FinishedStory = Omit<ImportedStory, 'id' | 'priority'> & { id: string; priority: number };

/**
 * Ids kept as written; stories without one get STORY-NNN by position (skipping numbers taken).
 * A repeated id keeps its first story. Priorities: as written; where none is, the file order.
 */
function finishStories(plan: ImportedPlan): FinishedStory[] {
  const seen = new Set<string>();
  const kept: ImportedStory[] = [];
  for (const story of plan.stories) {
    if (story.id !== undefined) {
      const problem = storyIdProblem(story.id);
      if (problem !== undefined) {
        plan.warnings.push(`${story.where}: id ${JSON.stringify(story.id)} ${problem}: replaced`);
        story.id = undefined;
      } else if (seen.has(story.id)) {
        plan.warnings.push(`${story.where}: ${story.id} appears twice; the first one is kept`);
        continue;
      } else seen.add(story.id);
    }
    kept.push(story);
  }
  let next = 1;
  const anyPriority = kept.some((story) => story.priority !== undefined);
  const lowest = Math.max(0, ...kept.map((story) => story.priority ?? 0));
  const finished = kept.map((story, position): FinishedStory => {
    let id = story.id;
    if (id === undefined) {
      while (seen.has(storyId(next))) next += 1;
      id = storyId(next);
      seen.add(id);
      next += 1;
    }
    if (story.acceptanceCriteria.length === 0)
      plan.warnings.push(
        `${story.where}: ${id} has no acceptance criteria; add some before running`,
      );
    return {
      ...story,
      id,
      priority: story.priority ?? (anyPriority ? lowest + 1 : position + 1),
    };
  });
  const ids = new Set(finished.map((story) => story.id));
  for (const story of finished) {
    const unknown = story.dependsOn.filter((dep) => !ids.has(dep) || dep === story.id);
    if (unknown.length > 0) {
      plan.warnings.push(`${story.id}: dropped unknown dependencies ${unknown.join(', ')}`);
      story.dependsOn = story.dependsOn.filter((dep) => !unknown.includes(dep));
    }
  }
  return finished;
}

function storyId(n: number): string {
  return `STORY-${String(n).padStart(3, '0')}`;
}
