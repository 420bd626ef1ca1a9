/**
 * The prompt's context budget (`context.tokenBudget`). The template and the story always go in
 * whole; what is left of the budget is shared by the prompt's sections (progress.txt's excerpt,
 * and any section added later, such as memories): each gets its weight's share of what the
 * sections before it left, so a section that needs less than its share passes the rest on.
 */

/** The usual rough rule for English and code; close enough for a budget, and needs no tokenizer. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * One part of the prompt that is fitted to the budget. Its content is loaded beforehand
 * (prompt-sections.ts), so fitting is pure and the same for the run and `--dry-run`.
 */
export interface PromptSection {
  /** For messages and tests: `progress`, `memories`, … */
  id: string;
  /** Its share of the room, relative to the other sections' weights. */
  weight: number;
  /** Its text in at most `maxChars` characters; '' when it has nothing to add. */
  render(maxChars: number): string;
}

/** The sections' texts, in order, within `roomChars` characters together (empty ones left out). */
export function fitSections(sections: readonly PromptSection[], roomChars: number): string[] {
  let room = Math.max(0, Math.floor(roomChars));
  let weightLeft = sections.reduce((sum, section) => sum + Math.max(0, section.weight), 0);
  const texts: string[] = [];
  for (const section of sections) {
    const weight = Math.max(0, section.weight);
    const share = weightLeft > 0 ? Math.floor((room * weight) / weightLeft) : 0;
    weightLeft -= weight;
    // Two characters: the blank line that separates it from what comes before.
    const text = share > 2 ? section.render(share - 2) : '';
    if (text === '') continue;
    // A section that overstepped its share is cut rather than trusted.
    const kept = text.length > share - 2 ? text.slice(0, share - 2) : text;
    texts.push(kept);
    room -= kept.length + 2;
  }
  return texts;
}

/** A prompt's size against the budget, as `--dry-run`, `validate` and run warnings say it. */
export interface PromptSize {
  bytes: number;
  tokens: number;
  budget: number;
  overBudget: boolean;
}

export function promptSize(prompt: string, budget: number): PromptSize {
  const tokens = estimateTokens(prompt);
  return { bytes: Buffer.byteLength(prompt), tokens, budget, overBudget: tokens > budget };
}

/** "≈ 1234 tokens of the 16000-token budget" (context.tokenBudget), with what over it means. */
export function describePromptSize(size: PromptSize): string {
  const base = `≈ ${size.tokens} tokens of the ${size.budget}-token budget (context.tokenBudget)`;
  return size.overBudget ? `${base}: OVER it` : base;
}

/** The warning for a prompt over its budget: the parts that cannot shrink are too big. */
export function overBudgetWarning(storyId: string, size: PromptSize): string {
  return `the prompt for ${storyId} is ≈ ${size.tokens} tokens, over context.tokenBudget (${size.budget}): the template and the story alone do not fit, so progress.txt is left out of it (the agent is told to read the file). Shorten the story or the prompt template, or raise context.tokenBudget`;
}
