/**
 * A one-line summary of a tool call's input for logs, the monitor and `ralph inspect`: the part a
 * person recognises (the command, the file), never the content (a Write can carry megabytes).
 */

export const SUMMARY_MAX_CHARS = 200;

/** The input field that says what a built-in tool call is about. */
const SUMMARY_FIELD: Readonly<Record<string, string>> = {
  Bash: 'command',
  Read: 'file_path',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Grep: 'pattern',
  Glob: 'pattern',
  WebFetch: 'url',
  WebSearch: 'query',
  Task: 'description',
  Agent: 'description',
};

export function summarizeToolInput(toolName: string, input: unknown): string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return '';
  const fields = input as Record<string, unknown>;
  const known = SUMMARY_FIELD[toolName];
  const preferred = known === undefined ? undefined : fields[known];
  if (typeof preferred === 'string') return oneLine(preferred);
  // Other tools (MCP ones, new built-ins): the first short string field says the most, a long
  // one (a file body) the least.
  let fallback: string | undefined;
  for (const value of Object.values(fields)) {
    if (typeof value !== 'string') continue;
    if (value.length <= SUMMARY_MAX_CHARS) return oneLine(value);
    fallback ??= value;
  }
  return fallback === undefined ? '' : oneLine(fallback);
}

function oneLine(text: string): string {
  // Only the head can survive the cap, so never collapse whitespace over a huge string.
  const head = text.length > SUMMARY_MAX_CHARS * 4 ? text.slice(0, SUMMARY_MAX_CHARS * 4) : text;
  const flat = head.replace(/\s+/g, ' ').trim();
  return flat.length > SUMMARY_MAX_CHARS ? `${flat.slice(0, SUMMARY_MAX_CHARS - 1)}…` : flat;
}
