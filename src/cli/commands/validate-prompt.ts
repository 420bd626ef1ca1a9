import { readFile, stat } from 'node:fs/promises';
import { iterationPrompt } from '../../core/iteration-prompt.js';
import type { PreflightCheck } from '../../core/preflight-check.js';
import type { PreflightReport } from '../../core/preflight.js';
import { describePromptSize, overBudgetWarning } from '../../core/prompt-budget.js';
import { nextStory } from '../../plan/order.js';
import type { Config } from '../../state/config-schema.js';
import { findPromptFile, loopPaths } from '../../state/paths.js';

const BUILT_IN_PROMPT = new URL('../../../templates/prompt.md', import.meta.url);

/**
 * `validate`'s prompt check: the next story's prompt, built as the run would build it, against
 * context.tokenBudget. Over it is a warning (the run still works, but the agent starts with
 * less room and without progress.txt's excerpt), never a failure. Undefined when there is no
 * readable task list or no open story.
 */
export async function promptCheck(
  report: PreflightReport,
  config: Config,
  cwd: string,
): Promise<PreflightCheck | undefined> {
  const document = report.taskList;
  const story = document === undefined ? undefined : nextStory(document.taskList);
  if (document === undefined || story === undefined) return undefined;
  const paths = loopPaths(report.loopDir);
  const found = await findPromptFile(report.loopDir);
  const { size } = await iterationPrompt(
    {
      cwd,
      loopDir: report.loopDir,
      taskListFile: document.file,
      promptTemplate: await readFile(found?.path ?? BUILT_IN_PROMPT, 'utf8'),
      hasSpec: await exists(paths.spec),
      hasSpecsDir: await exists(paths.specsDir),
      tokenBudget: config.context.tokenBudget,
      completionPromise: config.completion.promise,
      verification: { qualityChecks: config.qualityChecks },
    },
    story,
  );
  const message = `prompt for ${story.id}: ${size.bytes} bytes, ${describePromptSize(size)}`;
  return size.overBudget
    ? {
        name: 'prompt',
        status: 'warn',
        message,
        details: [overBudgetWarning(story.id, size)],
        hint: 'shorten the story (move detail into specs/ and name the file in the story) or raise context.tokenBudget',
      }
    : { name: 'prompt', status: 'pass', message, details: [], hint: undefined };
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}
