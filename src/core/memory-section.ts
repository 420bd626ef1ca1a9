import { MEMORY_CATEGORIES } from '../state/memory-format.js';
import { loadMemories, type MemoryFiles, type ScopedEntry } from '../state/memory-file.js';
import type { MemoryInjection } from '../state/memory-config-schema.js';
import { RalphError } from '../util/errors.js';

/**
 * The prompt's memories section (README, "Memories"): the feature's and the project's
 * memories.md entries a story should see, within `memory.tokenBudget`.
 *
 * - auto: a story with `tags` gets the entries sharing one of them; a story without gets all.
 * - manual: memories are injected only where a story asks for them by naming `tags`; the other
 *   stories are told where the files are, so the agent can read them when it judges they help.
 * - none: nothing at all.
 *
 * Feature entries come before project entries and, within each, newer before older: when the
 * budget is short, what is closest to the work survives.
 */

export interface MemoryPromptSettings {
  tokenBudget: number;
  injection: MemoryInjection;
  files: MemoryFiles;
}

/** About 4 characters a token: conservative for English and code. */
export const CHARS_PER_TOKEN = 4;

export interface MemorySectionInput {
  entries: readonly ScopedEntry[];
  storyTags: readonly string[];
  tokenBudget: number;
  injection: MemoryInjection;
  /** The files as the agent should see them (relative to its working directory). */
  featureFile: string;
  projectFile: string | undefined;
}

/** The section's text (empty for `none`); pure, so the budget can be tested exactly. */
export function memorySection(input: MemorySectionInput): string {
  if (input.injection === 'none') return '';
  const files = [
    input.featureFile,
    ...(input.projectFile === undefined ? [] : [input.projectFile]),
  ];
  const record = `To keep a reusable learning for later iterations, append it to ${input.featureFile} under its heading (## Patterns, ## Decisions, ## Fixes or ## Context; add the heading if the file lacks it) as \`- [tags: tag1,tag2] what you learned\`; ralph adds the date.`;
  const lines = ['', '## Memories', ''];
  if (input.injection === 'manual' && input.storyTags.length === 0) {
    lines.push(
      `Memories of this project are kept in ${files.join(' and ')}; read them if they may help with this story.`,
      '',
      record,
    );
    return `${lines.join('\n')}\n`;
  }
  const wanted = new Set(input.storyTags);
  const relevant = input.entries.filter(
    (entry) => wanted.size === 0 || entry.tags.some((tag) => wanted.has(tag)),
  );
  const { chosen, left } = fitBudget(relevant, input.tokenBudget * CHARS_PER_TOKEN);
  const about = wanted.size === 0 ? '' : ` for the tags ${[...wanted].join(', ')}`;
  if (chosen.length === 0) {
    lines.push(
      relevant.length === 0
        ? `No memories${about} yet (${files.join(', ')}).`
        : `${relevant.length} memories${about} did not fit the memory budget; they are in ${files.join(' and ')}.`,
    );
  } else {
    lines.push(`Learnings kept from earlier work${about} (from ${files.join(' and ')}):`);
    lines.push(...bodyOf(chosen));
    if (left > 0) {
      lines.push('', `${left} more did not fit the memory budget; the files hold them.`);
    }
  }
  lines.push('', record);
  return `${lines.join('\n')}\n`;
}

/** One entry as the prompt shows it: the date is left out, it costs tokens and rarely matters. */
function entryLine(entry: ScopedEntry): string {
  const tags = entry.tags.length > 0 ? `[tags: ${entry.tags.join(',')}] ` : '';
  const scope = entry.scope === 'project' ? ' (project)' : '';
  return `- ${tags}${entry.text}${scope}`;
}

/** Category headings and entry lines; what the budget bounds. */
function bodyOf(entries: readonly ScopedEntry[]): string[] {
  return MEMORY_CATEGORIES.flatMap((category) => {
    const inCategory = entries.filter((entry) => entry.category === category);
    return inCategory.length === 0 ? [] : ['', `### ${category}`, ...inCategory.map(entryLine)];
  });
}

/** Most relevant first, as many as fit `chars` (headings counted); the rest are only counted. */
function fitBudget(
  entries: readonly ScopedEntry[],
  chars: number,
): { chosen: ScopedEntry[]; left: number } {
  const ranked = [...entries].sort(byRelevance);
  const chosen: ScopedEntry[] = [];
  const categories = new Set<string>();
  let used = 0;
  for (const entry of ranked) {
    const heading = categories.has(entry.category) ? 0 : `\n### ${entry.category}`.length + 1;
    const cost = entryLine(entry).length + 1 + heading;
    if (used + cost > chars) continue;
    used += cost;
    categories.add(entry.category);
    chosen.push(entry);
  }
  return { chosen, left: ranked.length - chosen.length };
}

function byRelevance(a: ScopedEntry, b: ScopedEntry): number {
  if (a.scope !== b.scope) return a.scope === 'feature' ? -1 : 1;
  // ISO times in one format order as strings; localeCompare would cost ICU collation per pair.
  const [x, y] = [a.timestamp ?? '', b.timestamp ?? ''];
  if (x !== y) return x < y ? 1 : -1;
  return b.line - a.line;
}

/**
 * The memories section for `story`, read from disk now (the agent and `ralph memory` change the
 * files between iterations). A file that cannot be parsed leaves the section out with a warning
 * for the run to show, rather than stopping the loop over a learning log.
 */
export async function readMemorySection(
  settings: MemoryPromptSettings,
  story: { tags?: readonly string[] | undefined },
  shown: (path: string) => string,
): Promise<{ text: string; warning?: string }> {
  if (settings.injection === 'none') return { text: '' };
  let entries: ScopedEntry[];
  try {
    entries = await loadMemories(settings.files);
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return { text: '', warning: `memories left out of the prompt: ${error.message}` };
  }
  const text = memorySection({
    entries,
    storyTags: story.tags ?? [],
    tokenBudget: settings.tokenBudget,
    injection: settings.injection,
    featureFile: shown(settings.files.feature),
    projectFile: settings.files.project === undefined ? undefined : shown(settings.files.project),
  });
  return { text };
}
