/**
 * Control characters in text that came from the agent or a task list (story ids, titles, error
 * messages quoting them): in a line-based file a newline starts a line the agent wrote, an ESC
 * drives the terminal of whoever `cat`s it. C0, DEL, C1 and the Unicode line and paragraph
 * separators count; tab does not (it is ordinary in text and harmless on one line).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;

export function hasControlCharacter(text: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text);
}

/** `text` on one line with every control character written as an escape (\n, \r, \u001b). */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
