import type { Story } from '../plan/types.js';
import { CHARS_PER_TOKEN, type PromptSection } from './prompt-budget.js';
import { readProgressExcerpt } from './progress-excerpt.js';
import { progressSection } from './progress-section.js';

export interface PromptSectionsInput {
  /** The loop directory, and the story the prompt is for (its tags, say, choose what goes in). */
  loopDir: string;
  story: Story;
  /** progress.txt, and how the prompt names it (relative to the agent's working directory). */
  progressFile: string;
  progressShown: string;
  /** context.tokenBudget: no section can use more, so no more is read. */
  tokenBudget: number;
}

/**
 * The prompt's budgeted sections for one iteration, in order: the one place where they are
 * listed, for the run (engine.ts) and `--dry-run` / `validate` alike. A new section (memories)
 * is one more entry: load its content here, give it a weight, render within what it is given.
 */
export async function loadPromptSections(input: PromptSectionsInput): Promise<PromptSection[]> {
  const excerpt = await readProgressExcerpt(
    input.progressFile,
    input.tokenBudget * CHARS_PER_TOKEN,
  );
  return [progressSection(excerpt, input.progressShown)];
}
