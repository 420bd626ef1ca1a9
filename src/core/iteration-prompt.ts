import { relative } from 'node:path';
import type { Story } from '../plan/types.js';
import { loopPaths } from '../state/paths.js';
import { DEFAULT_TOKEN_BUDGET } from '../state/context-config-schema.js';
import type { LoopOptions, VerificationSettings } from './loop-types.js';
import { buildPrompt } from './prompt.js';
import { promptSize, type PromptSize } from './prompt-budget.js';
import { loadPromptSections } from './prompt-sections.js';

/** What the prompt depends on: a subset of the run's LoopOptions (validate has no more). */
export type PromptOptions = Pick<
  LoopOptions,
  | 'cwd'
  | 'loopDir'
  | 'taskListFile'
  | 'promptTemplate'
  | 'hasSpec'
  | 'hasSpecsDir'
  | 'tokenBudget'
  | 'completionPromise'
> & { verification?: Pick<VerificationSettings, 'qualityChecks'> | undefined };

/**
 * The prompt one iteration gives its agent for `story`, and its size against the budget: built
 * the same way for the run and for `--dry-run` / `validate`, so what they show is what runs.
 * `lead` (a pivot's fresh-diagnosis preamble) goes first, `tail` (the memories section) last; both
 * count against the budget.
 */
export async function iterationPrompt(
  options: PromptOptions,
  story: Story,
  lead = '',
  tail = '',
): Promise<{ prompt: string; size: PromptSize }> {
  const paths = loopPaths(options.loopDir);
  const shown = (path: string): string => relative(options.cwd, path) || '.';
  const tokenBudget = options.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
  const sections = await loadPromptSections({
    loopDir: options.loopDir,
    story,
    progressFile: paths.progress,
    progressShown: shown(paths.progress),
    tokenBudget,
  });
  const prompt =
    lead +
    buildPrompt(
      options.promptTemplate,
      story,
      {
        taskList: shown(options.taskListFile),
        progress: shown(paths.progress),
        spec: options.hasSpec ? shown(paths.spec) : undefined,
        specsDir: options.hasSpecsDir ? `${shown(paths.specsDir)}/` : undefined,
      },
      checksOf(story, options),
      {
        sections,
        tokenBudget: tokenBudget - Math.ceil((lead.length + tail.length) / 4),
        completionPromise: options.completionPromise,
      },
    ) +
    tail;
  return { prompt, size: promptSize(prompt, tokenBudget) };
}

/** The commands ralph runs before it believes the story (its verify, the quality checks). */
function checksOf(story: Story, options: PromptOptions): string[] {
  const verification = options.verification;
  if (verification === undefined) return [];
  return [...(story.verify ?? []), ...Object.values(verification.qualityChecks)];
}
