/** Cuts text to at most `max` characters, ending in '…' when it had to cut. */
export function truncate(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
