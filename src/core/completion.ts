import { DEFAULT_COMPLETION_PROMISE } from '../state/context-config-schema.js';

/**
 * Completion signals. Only the agent's final message counts: the same words inside a tool result
 * (a file the agent read) or the echoed prompt must never end a loop (agent-outputs.md).
 */

export type CompletionSignal = 'STORY_COMPLETE' | 'COMPLETE' | 'custom';

const PROMISE = /<promise>\s*([^<]*?)\s*<\/promise>/g;

/**
 * The signal in the agent's final text. The last promise wins (an agent may quote another one
 * earlier in its summary): `<promise>STORY_COMPLETE</promise>`, or completion.promise (`promise`,
 * default `<promise>COMPLETE</promise>`), which claims every story passes. A promise of the
 * `<promise>WORD</promise>` form is matched with any spaces inside the tag, any other text
 * literally. A configured custom pattern is a literal substring and means the same as the promise.
 */
export function detectCompletion(
  finalText: string | undefined,
  customPatterns: readonly string[] = [],
  promise: string = DEFAULT_COMPLETION_PROMISE,
): CompletionSignal | undefined {
  if (finalText === undefined || finalText === '') return undefined;
  const promiseWord = tagWord(promise);
  let signal: { kind: CompletionSignal; at: number } | undefined;
  const seen = (kind: CompletionSignal, at: number): void => {
    if (signal === undefined || at >= signal.at) signal = { kind, at };
  };
  for (const match of finalText.matchAll(PROMISE)) {
    const word = match[1];
    if (promiseWord !== undefined && word === promiseWord) seen('COMPLETE', match.index);
    else if (word === 'STORY_COMPLETE') seen('STORY_COMPLETE', match.index);
  }
  if (promiseWord === undefined) {
    for (let at = finalText.indexOf(promise); at !== -1; at = finalText.indexOf(promise, at + 1))
      seen('COMPLETE', at);
  }
  if (signal !== undefined) return signal.kind;
  return customPatterns.some((pattern) => pattern !== '' && finalText.includes(pattern))
    ? 'custom'
    : undefined;
}

/** `WORD` of a promise written `<promise>WORD</promise>`; undefined for any other text. */
function tagWord(promise: string): string | undefined {
  const match = /^\s*<promise>\s*([^<]*?)\s*<\/promise>\s*$/.exec(promise);
  return match?.[1] === '' ? undefined : match?.[1];
}
