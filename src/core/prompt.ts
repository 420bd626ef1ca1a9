import type { Story } from '../plan/types.js';
import { DEFAULT_COMPLETION_PROMISE } from '../state/context-config-schema.js';
import { CHARS_PER_TOKEN, fitSections, type PromptSection } from './prompt-budget.js';

/** Where the files the agent should read are, relative to the agent's working directory. */
export interface PromptFiles {
  taskList: string;
  progress: string;
  spec: string | undefined;
  specsDir: string | undefined;
}

/** What the prompt holds besides the template and the story, and how big it may get. */
export interface PromptContext {
  /** Budgeted parts, in order (prompt-sections.ts loads them): progress.txt's excerpt, … */
  sections: readonly PromptSection[];
  /** context.tokenBudget. */
  tokenBudget: number;
  /** completion.promise; the default one when absent. */
  completionPromise?: string | undefined;
}

/** Where a template names the completion promise; replaced by completion.promise. */
export const PROMISE_PLACEHOLDER = '{{completion.promise}}';

/**
 * The iteration prompt: the user's template, then the story ralph chose and where the loop's
 * files are, then the budgeted sections (progress.txt's patterns and newest entries) in what the
 * budget leaves. Naming the story removes the agent's guesswork about which one is next (ralph has
 * already applied priority, ids and dependsOn), and the paths matter because loop directories
 * live in `.ralph/<branch>/`, not in the repository root the agent starts in.
 */
export function buildPrompt(
  template: string,
  story: Story,
  files: PromptFiles,
  /** The commands ralph runs before it believes the story is done (its verify, the quality checks). */
  checks: readonly string[] = [],
  context: PromptContext = { sections: [], tokenBudget: Number.POSITIVE_INFINITY },
): string {
  const promise = context.completionPromise ?? DEFAULT_COMPLETION_PROMISE;
  const text = withPromise(template, promise);
  const lines = [
    text.trimEnd(),
    '',
    '---',
    '',
    '## This iteration',
    '',
    `Work on **${story.id}: ${story.title}** and only on it.`,
  ];
  if (story.description !== '' && story.description !== story.title) {
    lines.push('', story.description);
  }
  if (story.acceptanceCriteria.length > 0) {
    lines.push(
      '',
      'Acceptance criteria:',
      ...story.acceptanceCriteria.map((criterion) => `- ${criterion}`),
    );
  }
  if (story.notes !== undefined && story.notes.trim() !== '') {
    lines.push('', 'Notes left by earlier iterations:', story.notes.trim());
  }
  if (story.specRef !== undefined) lines.push('', `Detailed spec: ${story.specRef}`);
  if (checks.length > 0) {
    // Said up front: an agent that knows its claim is checked runs the checks before claiming.
    lines.push(
      '',
      'ralph verifies the story itself when you mark it passing: it runs these commands and sets "passes" back to false if any fails (or if tests were deleted, skipped or lost assertions):',
      ...checks.map((command) => `- \`${command}\``),
    );
  }
  lines.push(
    '',
    'Files:',
    `- task list: ${files.taskList} (set this story's "passes" to true when it is done; change nothing else but its "notes")`,
    `- progress log: ${files.progress} (what earlier iterations did and learned: its Codebase Patterns and newest entries are below, the file has the rest; append what you did and learned, and put lessons for every later story under its "## Codebase Patterns" heading)`,
  );
  if (files.spec !== undefined) lines.push(`- spec: ${files.spec}`);
  if (files.specsDir !== undefined) lines.push(`- detailed specs: ${files.specsDir}`);
  if (!text.includes(promise)) {
    // A template of the person's own that never names the configured promise.
    lines.push('', `When every story passes, end your final message with: ${promise}`);
  }
  const fixed = `${lines.join('\n')}\n`;
  const room = context.tokenBudget * CHARS_PER_TOKEN - fixed.length - 1;
  const sections = fitSections(context.sections, room);
  return sections.length === 0 ? fixed : `${fixed}\n${sections.join('\n\n')}\n`;
}

/**
 * The template with completion.promise in it: at its placeholder, and, when the person chose
 * another promise, in place of the default one (the built-in template of earlier versions, copied
 * by `ralph init`, names it literally).
 */
function withPromise(template: string, promise: string): string {
  const placed = template.replaceAll(PROMISE_PLACEHOLDER, promise);
  return promise === DEFAULT_COMPLETION_PROMISE
    ? placed
    : placed.replaceAll(DEFAULT_COMPLETION_PROMISE, promise);
}
