import type { ProgressExcerpt } from './progress-excerpt.js';
import type { PromptSection } from './prompt-budget.js';

/**
 * progress.txt in the prompt: its Codebase Patterns section first (the distilled lessons, worth
 * most per token), then the newest entries that fit, cut where an entry (a `---` line or a
 * heading) or at least a paragraph starts, and a sentence naming the file for everything older.
 */
export function progressSection(
  excerpt: ProgressExcerpt | undefined,
  shownFile: string,
  weight = 1,
): PromptSection {
  return {
    id: 'progress',
    weight,
    render: (maxChars) =>
      excerpt === undefined ? '' : renderProgress(excerpt, shownFile, maxChars),
  };
}

const CUT_NOTE = '\n… (cut here; the whole section is in the file)';

function renderProgress(excerpt: ProgressExcerpt, file: string, maxChars: number): string {
  const parts: string[] = [];
  let room = maxChars;
  const patterns = hasBody(excerpt.patterns) ? excerpt.patterns : '';
  if (patterns !== '') {
    const cut = cutAtLine(patterns, room - CUT_NOTE.length);
    const text = patterns.length <= room ? patterns : cut === '' ? '' : `${cut}${CUT_NOTE}`;
    if (text !== '') {
      parts.push(text);
      room -= text.length + 2;
    }
  }
  const recent = excerpt.recent.trim() === '' ? '' : excerpt.recent.replace(/\s+$/, '\n');
  if (recent !== '') {
    const wholeHeading = `## From ${file} (all of it)`;
    const partHeading = `## Newest entries of ${file} (older ones are left out here: the file has ${kilobytes(excerpt.totalBytes)}; read or grep it for them)`;
    const whole = `${wholeHeading}\n\n${recent.trim()}`;
    if (excerpt.complete && whole.length <= room) {
      parts.push(whole);
    } else {
      const start = newestThatFits(recent, room - partHeading.length - 2);
      if (start !== undefined) parts.push(`${partHeading}\n\n${recent.slice(start).trim()}`);
    }
  }
  return parts.join('\n\n');
}

/**
 * Where the longest suffix of `text` that fits in `maxChars` starts, preferring the start of an
 * entry (`---` or a heading), then a paragraph, then a line. Undefined when not even one line fits.
 */
function newestThatFits(text: string, maxChars: number): number | undefined {
  if (maxChars <= 0) return undefined;
  const lowest = text.length - maxChars;
  const entries: number[] = [];
  const paragraphs: number[] = [];
  const lines: number[] = [];
  let previousBlank = true;
  let offset = 0;
  for (const line of text.split('\n')) {
    const blank = line.trim() === '';
    if (!blank && offset >= lowest) {
      lines.push(offset);
      if (/^(-{3,}\s*$|#{1,6}\s)/.test(line)) entries.push(offset);
      else if (previousBlank) paragraphs.push(offset);
    }
    previousBlank = blank;
    offset += line.length + 1;
  }
  const entry = entries[0];
  const paragraph = paragraphs[0];
  // An entry boundary is best, unless it leaves most of the room unused.
  if (entry !== undefined && (paragraph === undefined || text.length - entry >= maxChars / 2))
    return entry;
  return paragraph ?? lines[0];
}

function hasBody(section: string): boolean {
  return section.split('\n').slice(1).join('\n').trim() !== '';
}

function cutAtLine(text: string, maxChars: number): string {
  if (maxChars <= 0) return '';
  const head = text.slice(0, maxChars);
  const end = head.lastIndexOf('\n');
  return end > 0 ? head.slice(0, end) : head;
}

function kilobytes(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / (1024 * 1024)).toFixed(1)} MB`
    : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
