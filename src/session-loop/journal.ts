/**
 * The journal of a loop, `.claude/ralph-journal-{id}.md` (the ralph-loop-mac format): the task
 * and start time, then one entry per iteration. The model is asked to read it at the start of an
 * iteration and add what it tried; ralph appends the transitions.
 */

export function journalHeader(id: string, startedAt: string, prompt: string): string {
  return [
    `# Ralph Loop Journal - ${id}`,
    '',
    `Started: ${startedAt}`,
    'Task:',
    '',
    fenced(prompt),
    '',
    '---',
    '',
    '## Iteration Log',
    '',
    '',
  ].join('\n');
}

export function journalEntry(iteration: number, at: string, status: string): string {
  return `### Iteration ${iteration} - ${at}\n\n**Status:** ${status}\n\n---\n\n`;
}

/** A code fence longer than any backtick run in the text, so no prompt can close it early. */
export function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}
