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

/**
 * What must never reach a terminal from text ralph did not write (agent output, story titles and
 * ids, error messages quoting them): C0 controls but tab and newline (ESC starts CSI screen
 * clears, OSC 52 clipboard writes and OSC 0 title changes; CR and BS overwrite what was shown),
 * DEL, the C1 controls (U+009B is a one-character CSI, U+009D an OSC), the bidirectional
 * embedding, override and isolate controls that reorder what a line appears to say, and the
 * Unicode line and paragraph separators.
 */
const TERMINAL_UNSAFE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * `text` safe to print to a terminal: every character of TERMINAL_UNSAFE written as a visible
 * escape (`\u001b`, `\r`), so the person sees that it was there and nothing acts on it. Newlines
 * and tabs stay. Every human view goes through this one function: the CLI's writeLine, the
 * monitor's view (safeForTerminal), the dashboard's snapshot.
 */
export function terminalText(text: string): string {
  TERMINAL_UNSAFE.lastIndex = 0;
  if (!TERMINAL_UNSAFE.test(text)) return text;
  return text.replace(TERMINAL_UNSAFE, (char) =>
    char === '\r' ? '\\r' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** `value` with terminalText applied to every string in it (a view model, a snapshot). */
export function safeForTerminal<T>(value: T): T {
  if (typeof value === 'string') return terminalText(value) as T;
  if (Array.isArray(value)) return value.map((each: unknown) => safeForTerminal(each)) as T;
  if (
    value !== null &&
    typeof value === 'object' &&
    Object.getPrototypeOf(value) === Object.prototype
  ) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, safeForTerminal(inner)]),
    ) as T;
  }
  return value;
}
