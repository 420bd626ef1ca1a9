/**
 * Completion signals. Only the agent's final message counts: the same words inside a tool result
 * (a file the agent read) or the echoed prompt must never end a loop (agent-outputs.md).
 */

export type CompletionSignal = 'STORY_COMPLETE' | 'COMPLETE' | 'custom';

const PROMISE = /<promise>\s*([^<]*?)\s*<\/promise>/g;

/**
 * The signal in the agent's final text: the last `<promise>…</promise>` that names COMPLETE or
 * STORY_COMPLETE wins (an agent may quote the other one earlier in its summary). A configured
 * custom pattern is a literal substring and means the feature is complete.
 */
export function detectCompletion(
  finalText: string | undefined,
  customPatterns: readonly string[] = [],
): CompletionSignal | undefined {
  if (finalText === undefined || finalText === '') return undefined;
  let signal: CompletionSignal | undefined;
  for (const match of finalText.matchAll(PROMISE)) {
    const word = match[1];
    if (word === 'COMPLETE' || word === 'STORY_COMPLETE') signal = word;
  }
  if (signal !== undefined) return signal;
  return customPatterns.some((pattern) => pattern !== '' && finalText.includes(pattern))
    ? 'custom'
    : undefined;
}
