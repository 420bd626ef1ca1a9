/**
 * The line scan under `ralph import` for Markdown: which lines are headings, list items (with
 * their checkbox) or text, and which are not content at all — front matter, fenced code and
 * HTML comments. A PRD's code blocks are full of things that look like stories (templates,
 * examples of the format itself); nothing inside one may become a story.
 */

export type MarkdownLine =
  | { kind: 'heading'; line: number; level: number; text: string }
  | { kind: 'item'; line: number; indent: number; checked: boolean | undefined; text: string }
  | { kind: 'text'; line: number; text: string }
  | { kind: 'blank'; line: number }
  /** A thematic break (`---`, `***`): in many PRDs it closes a section without a new heading. */
  | { kind: 'rule'; line: number };

export interface ScannedMarkdown {
  lines: MarkdownLine[];
  /** Front matter `title:`, when there is one. */
  frontTitle: string | undefined;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// `- [ ]`, `* [x]`, `1. [X]`, `- [✓]` and plain bullets; the box may stand alone on its line.
const ITEM = /^(\s*)(?:[-*+]|\d{1,3}[.)])(?:[ \t]+|$)(?:\[([ xX✓✔])\](?:[ \t]+|$))?(.*)$/;

export function scanMarkdown(text: string): ScannedMarkdown {
  const raw = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const lines: MarkdownLine[] = [];
  let start = 0;
  let frontTitle: string | undefined;
  if (raw[0]?.trim() === '---') {
    const end = raw.findIndex((line, index) => index > 0 && /^(?:---|\.\.\.)\s*$/.test(line));
    if (end > 0) {
      for (const line of raw.slice(1, end)) {
        const title = /^title\s*:\s*["']?(.*?)["']?\s*$/i.exec(line)?.[1];
        if (title !== undefined && title !== '') frontTitle = title;
      }
      start = end + 1;
    }
  }
  let fence: string | undefined;
  let comment = false;
  for (let index = start; index < raw.length; index++) {
    const line = raw[index] ?? '';
    const number = index + 1;
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      // Only a run of the same character, at least as long, closes the fence.
      if (marker?.startsWith(fence[0] ?? '`') === true && marker.length >= fence.length)
        fence = undefined;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    if (comment) {
      if (line.includes('-->')) comment = false;
      continue;
    }
    if (/^\s*<!--/.test(line)) {
      comment = !line.includes('-->');
      continue;
    }
    lines.push(classify(line, number));
  }
  return { lines, frontTitle };
}

function classify(line: string, number: number): MarkdownLine {
  if (line.trim() === '') return { kind: 'blank', line: number };
  const heading = HEADING.exec(line);
  if (heading !== null) {
    return {
      kind: 'heading',
      line: number,
      level: heading[1]?.length ?? 1,
      text: heading[2] ?? '',
    };
  }
  if (/^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line)) return { kind: 'rule', line: number };
  const item = ITEM.exec(line);
  if (item !== null) {
    const box = item[2];
    return {
      kind: 'item',
      line: number,
      indent: (item[1] ?? '').replace(/\t/g, '    ').length,
      checked: box === undefined ? undefined : box !== ' ',
      text: (item[3] ?? '').trim(),
    };
  }
  return { kind: 'text', line: number, text: line.trim() };
}

/** Markdown emphasis and inline-code ticks removed: `**Step 1:** run` → `Step 1: run`. */
export function plainText(text: string): string {
  return text
    .replace(/\*\*|__/g, '')
    .replace(/(^|\s)[*_](\S[^*_]*?)[*_](?=\s|$|[.,;:])/g, '$1$2')
    .replace(/~~(.*?)~~/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A heading's text as a section name: numbering, emoji, emphasis and a trailing colon removed,
 * lower case. `## 5. Non-Goals (Out of Scope)` → `non-goals (out of scope)`.
 */
export function sectionName(text: string): string {
  return plainText(text)
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .replace(/^(?:\d+(?:\.\d+)*[.)]?|[ivx]+\.)\s+/i, '')
    .replace(/:\s*$/, '')
    .trim()
    .toLowerCase();
}
