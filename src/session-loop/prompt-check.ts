import { normalisePromise } from './promise.js';

/**
 * Whether a prompt can be stored and fed back safely. The state file keeps it verbatim, so
 * quotes, `---` and YAML look-alikes are fine; what is refused is what breaks a hook reply or
 * a terminal: NUL bytes, an empty prompt, or one so long it eats the context every iteration.
 */

export const MAX_PROMPT_CHARS = 100_000;

export interface PromptCheck {
  errors: string[];
  warnings: string[];
}

export function checkPrompt(prompt: string, promise: string | null): PromptCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (prompt.trim() === '') errors.push('the prompt is empty');
  if (prompt.includes('\u0000')) errors.push('the prompt contains a NUL character');
  if (prompt.length > MAX_PROMPT_CHARS)
    errors.push(
      `the prompt has ${prompt.length} characters; the limit is ${MAX_PROMPT_CHARS} (it is sent again at every iteration)`,
    );
  // eslint-disable-next-line no-control-regex
  if (/[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(prompt))
    warnings.push(
      'the prompt contains control characters (e.g. terminal escapes); check it is what you meant',
    );
  if (promise !== null && !prompt.includes(normalisePromise(promise))) {
    warnings.push(
      `the prompt never mentions the promise "${normalisePromise(promise)}": the model only learns how to end the loop from the prompt; add e.g. "When every criterion is met, output <promise>${normalisePromise(promise)}</promise>"`,
    );
  }
  return { errors, warnings };
}
