import { inlineText } from './spec-text.js';

/**
 * The text `ralph amend` writes into spec.md's Amendments section and progress.txt, in the
 * layout of the Ralph Hybrid spec (Amendment System, Progress Tracking), so agents and people
 * who know that format read it without a key.
 */

export type AmendmentKind = 'ADD' | 'CORRECT' | 'REMOVE';

export function amendmentHeader(
  id: string,
  title: string,
  time: string,
  kind: AmendmentKind,
  reason: string,
  extra: readonly string[] = [],
): string[] {
  return [
    `### ${id}: ${inlineText(title)} (${time})`,
    '',
    `**Type:** ${kind}`,
    ...extra,
    `**Reason:** ${inlineText(reason)}`,
    '**Added by:** ralph amend',
  ];
}

function cell(text: string): string {
  return inlineText(text).replace(/\|/g, '\\|') || '(none)';
}

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

export function changeTable(changes: readonly FieldChange[]): string[] {
  return [
    '**Changes:**',
    '',
    '| Field | Before | After |',
    '|-------|--------|-------|',
    ...changes.map((c) => `| ${cell(c.field)} | ${cell(c.before)} | ${cell(c.after)} |`),
  ];
}

export interface ProgressEntry {
  id: string;
  time: string;
  kind: AmendmentKind;
  command: string;
  /** "Added Stories:" / "Corrected Story:" / "Removed Story:" with its indented lines. */
  heading: string;
  items: readonly string[];
  reason: string;
  filesUpdated: readonly string[];
  context?: string | undefined;
}

/** One amendment in progress.txt: starts and ends with `---` like the iteration entries. */
export function progressEntry(entry: ProgressEntry): string {
  const lines = [
    '---',
    `## Amendment ${entry.id}: ${entry.time}`,
    '',
    `Type: ${entry.kind}`,
    `Command: ${oneLine(entry.command)}`,
    '',
    entry.heading,
    ...entry.items.map((item) => `  - ${oneLine(item)}`),
    '',
    `Reason: ${oneLine(entry.reason)}`,
    '',
    'Files Updated:',
    ...entry.filesUpdated.map((file) => `  - ${oneLine(file)}`),
    ...(entry.context === undefined ? [] : ['', `Context: ${oneLine(entry.context)}`]),
    '',
    '---',
  ];
  return `${lines.join('\n')}\n`;
}

/** progress.txt is line-based: text from a flag never starts a line of its own. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** How a command line is logged: words with spaces or quotes are quoted. */
export function commandLine(words: readonly string[]): string {
  return words
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word)))
    .join(' ');
}
