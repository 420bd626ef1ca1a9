import { plainText, sectionName, type MarkdownLine } from './markdown-lines.js';
import { idsIn, parsePriority, statusPasses } from './story-fields.js';

/**
 * One story's body in any of the Markdown styles people write: labelled parts
 * (`**Description:**`, `**Acceptance Criteria:**`, `**Priority:** High`), a user-story paragraph
 * (`**As a** … **I want to** …`), sub-headings, and checkbox steps. Acceptance criteria are the
 * items under a criteria label; without one, the body's checkbox items (a plan's steps) are.
 */

type Part = 'start' | 'description' | 'criteria' | 'other';

export interface StoryBody {
  description: string;
  acceptanceCriteria: string[];
  priority: number | undefined;
  /** From a status label; undefined when the body has none. */
  status: boolean | undefined;
  /** true when every criterion is a checked box (and there is at least one). */
  allChecked: boolean;
  dependsOn: string[];
  notes: string | undefined;
}

const PARTS: [RegExp, Part | 'priority' | 'status' | 'depends'][] = [
  [/^(?:description|summary|user story|story|goal|overview|problem|what|why)$/, 'description'],
  [
    /^(?:acceptance criteria|acceptance|criteria|done when|definition of done|verification|verify|tests?|test cases|steps|tasks|checklist|requirements|success criteria|deliverables)$/,
    'criteria',
  ],
  [/^priority$/, 'priority'],
  [/^(?:status|state)$/, 'status'],
  [/^(?:depends on|dependencies|dependson|blocked by|requires|prerequisites)$/, 'depends'],
];

const NOTE_LABELS = /^(?:notes|technical notes|implementation notes|tech notes|hints)$/;

interface Label {
  name: string;
  value: string;
  kind: Part | 'priority' | 'status' | 'depends';
}

/** `**Priority:** High`, `Description: …`; unknown names count only when they were bold. */
function labelOf(raw: string): Label | undefined {
  const bold = /^(?:\*\*|__)[^*_]{1,40}?(?::\s*)?(?:\*\*|__)\s*:?/.test(raw);
  const boldOnly = /^(?:\*\*|__)[^*_:]{1,40}(?:\*\*|__)\s*$/.test(raw);
  const plain = plainText(raw);
  // `**Acceptance criteria**` alone on its line is a label too, colon or not.
  const match = /^([\p{L}][\p{L} /&'’()-]{0,40}?)\s*:\s*(.*)$/u.exec(
    boldOnly ? `${plain}:` : plain,
  );
  if (match === null) return undefined;
  const name = (match[1] ?? '').trim().toLowerCase();
  const value = (match[2] ?? '').trim();
  for (const [pattern, kind] of PARTS) if (pattern.test(name)) return { name, value, kind };
  if (!bold) return undefined;
  return { name, value, kind: 'other' };
}

function headingPart(text: string): Part {
  const name = sectionName(text);
  for (const [pattern, kind] of PARTS) {
    if (pattern.test(name)) return kind === 'description' || kind === 'criteria' ? kind : 'other';
  }
  return 'other';
}

export function parseStoryBody(lines: readonly MarkdownLine[]): StoryBody {
  let part: Part = 'start';
  const description: string[] = [];
  const criteria: { text: string; checked: boolean | undefined }[] = [];
  const boxes: { text: string; checked: boolean | undefined }[] = [];
  const notes: string[] = [];
  let noteSection = false;
  let priority: number | undefined;
  let status: boolean | undefined;
  const dependsOn: string[] = [];

  for (const line of lines) {
    if (line.kind === 'blank' || line.kind === 'rule') continue;
    if (line.kind === 'heading') {
      part = headingPart(line.text);
      noteSection = NOTE_LABELS.test(sectionName(line.text));
      continue;
    }
    const raw = line.text;
    const label = labelOf(raw);
    if (label !== undefined) {
      noteSection = NOTE_LABELS.test(label.name);
      if (label.kind === 'priority') priority = parsePriority(label.value) ?? priority;
      else if (label.kind === 'status') status = statusPasses(label.value) ?? status;
      else if (label.kind === 'depends') dependsOn.push(...idsIn(label.value));
      else {
        part = label.kind;
        if (label.value !== '') {
          if (part === 'description') description.push(plainText(label.value));
          else if (noteSection) notes.push(plainText(label.value));
        }
      }
      continue;
    }
    const text = plainText(raw);
    if (text === '') continue;
    if (line.kind === 'item') {
      const entry = { text, checked: line.checked };
      if (part === 'criteria') criteria.push(entry);
      else if (part === 'start' || part === 'description') {
        if (line.checked === undefined) description.push(text);
        else boxes.push(entry);
      } else if (line.checked !== undefined) boxes.push(entry);
      else if (noteSection) notes.push(text);
    } else if (part === 'start' || part === 'description') {
      description.push(text);
    } else if (noteSection) {
      notes.push(text);
    }
  }
  const chosen = criteria.length > 0 ? criteria : boxes;
  return {
    description: description.join(' ').trim(),
    acceptanceCriteria: chosen.map((each) => each.text),
    priority,
    status,
    allChecked: chosen.length > 0 && chosen.every((each) => each.checked === true),
    dependsOn,
    notes: notes.length > 0 ? notes.join('\n') : undefined,
  };
}
