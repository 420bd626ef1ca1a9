import type { Story } from '../plan/types.js';

/** Where the files the agent should read are, relative to the agent's working directory. */
export interface PromptFiles {
  taskList: string;
  progress: string;
  spec: string | undefined;
  specsDir: string | undefined;
}

/**
 * The iteration prompt: the user's template, then the story ralph chose and where the loop's
 * files are. Naming the story removes the agent's guesswork about which one is next (ralph has
 * already applied priority, ids and dependsOn), and the paths matter because loop directories
 * live in `.ralph/<branch>/`, not in the repository root the agent starts in.
 */
export function buildPrompt(
  template: string,
  story: Story,
  files: PromptFiles,
  /** The commands ralph runs before it believes the story is done (its verify, the quality checks). */
  checks: readonly string[] = [],
): string {
  const lines = [
    template.trimEnd(),
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
    `- progress log: ${files.progress} (read it first; append what you did and learned)`,
  );
  if (files.spec !== undefined) lines.push(`- spec: ${files.spec}`);
  if (files.specsDir !== undefined) lines.push(`- detailed specs: ${files.specsDir}`);
  return `${lines.join('\n')}\n`;
}
