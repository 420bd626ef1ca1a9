/**
 * Completion promises. A loop ends only when the model prints `<promise>TEXT</promise>` and the
 * tag's content, trimmed and with inner whitespace collapsed, is the promise itself. The text is
 * compared as a plain string: `*`, `?`, quotes or regex characters in a promise mean themselves
 * (the bash original fed them to `[[ == ]]`, a glob). The bare word in prose never counts.
 */

const PROMISE_TAG = /<promise>([\s\S]*?)<\/promise>/g;

export function normalisePromise(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

export function containsPromise(text: string | undefined, promise: string): boolean {
  if (text === undefined) return false;
  const wanted = normalisePromise(promise);
  if (wanted === '') return false;
  for (const match of text.matchAll(PROMISE_TAG)) {
    if (normalisePromise(match[1] ?? '') === wanted) return true;
  }
  return false;
}

/** Why a promise cannot be used, or undefined when it can (checked by `ralph loop start`). */
export function promiseProblem(promise: string): string | undefined {
  const normal = normalisePromise(promise);
  if (normal === '') return 'the completion promise is empty';
  if (normal.includes('<promise>') || normal.includes('</promise>'))
    return 'the completion promise must not contain <promise> tags: give only the text inside them';
  if (normal.length > 200) return 'the completion promise is longer than 200 characters';
  return undefined;
}
