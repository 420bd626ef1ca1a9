import {
  isCanonical,
  renderEntry,
  type MemoryBlock,
  type MemoryCategory,
  type MemoryDocument,
  type MemoryEntry,
} from './memory-format.js';

/**
 * Changes to a parsed memories.md. Each returns a new document and leaves every block it does
 * not mean to change as it was, so the untouched lines are written back byte for byte.
 */

type EntryBlock = Extract<MemoryBlock, { kind: 'entry' }>;

interface Section {
  heading: Extract<MemoryBlock, { kind: 'heading' }> | undefined;
  blocks: MemoryBlock[];
}

function sectionsOf(document: MemoryDocument): Section[] {
  const sections: Section[] = [{ heading: undefined, blocks: [] }];
  for (const block of document.blocks) {
    if (block.kind === 'heading') sections.push({ heading: block, blocks: [] });
    else sections.at(-1)?.blocks.push(block);
  }
  return sections;
}

function joinSections(sections: readonly Section[]): MemoryBlock[] {
  return sections.flatMap((section) =>
    section.heading === undefined ? section.blocks : [section.heading, ...section.blocks],
  );
}

const isBlank = (block: MemoryBlock | undefined): boolean =>
  block?.kind === 'text' && block.raw.trim() === '';
const blank = (): MemoryBlock => ({ kind: 'text', raw: '' });

/**
 * Blocks to add at the end of a section's content, before the blank lines that close it. An
 * empty section gets a blank line after its heading, and one before the next, as ralph writes.
 */
function appendTo(
  blocks: readonly MemoryBlock[],
  added: readonly MemoryBlock[],
  last: boolean,
): MemoryBlock[] {
  let end = blocks.length;
  while (end > 0 && isBlank(blocks[end - 1])) end -= 1;
  const content = blocks.slice(0, end);
  const trailing = blocks.slice(end);
  if (content.length > 0) return [...content, ...added, ...trailing];
  const after = trailing.slice(1);
  return [blank(), ...added, ...(after.length === 0 && !last ? [blank()] : after)];
}

/** The document with `entry` added at the end of its category (the category made if missing). */
export function addEntry(
  document: MemoryDocument,
  entry: Pick<MemoryEntry, 'category' | 'timestamp' | 'tags' | 'text'>,
): MemoryDocument {
  const block: EntryBlock = {
    kind: 'entry',
    entry: { ...entry, line: 0 },
    lines: [renderEntry(entry)],
    head: entry.text,
  };
  const sections = sectionsOf(document);
  const target = sections.find((section) => section.heading?.category === entry.category);
  if (target !== undefined) {
    target.blocks = appendTo(target.blocks, [block], target === sections.at(-1));
    return { ...document, blocks: joinSections(sections), finalNewline: true };
  }
  const last = sections.at(-1);
  if (last !== undefined && !isBlank(last.blocks.at(-1) ?? blank())) last.blocks.push(blank());
  sections.push({
    heading: { kind: 'heading', category: entry.category, raw: `## ${entry.category}` },
    blocks: [blank(), block],
  });
  return { ...document, blocks: joinSections(sections), finalNewline: true };
}

/** The document without the entries `remove` picks, and how many went. */
export function removeEntries(
  document: MemoryDocument,
  remove: (entry: MemoryEntry) => boolean,
): { document: MemoryDocument; removed: MemoryEntry[] } {
  const removed: MemoryEntry[] = [];
  const blocks: MemoryBlock[] = [];
  // An entry that stood between blank lines leaves one blank line, not two.
  let dropBlank = false;
  for (const block of document.blocks) {
    if (block.kind === 'entry' && remove(block.entry)) {
      removed.push(block.entry);
      const before = blocks.at(-1);
      dropBlank = before === undefined || isBlank(before);
      continue;
    }
    const drop = dropBlank && isBlank(block);
    dropBlank = false;
    if (!drop) blocks.push(block);
  }
  return { document: { ...document, blocks }, removed };
}

/**
 * What an agent appended, in ralph's form: a timestamp where it gave none (`now`), tags in
 * lower case joined by commas, `-` bullets, and a category's second heading (an agent that
 * appended `## Fixes` at the end) folded into the first. `changed` is false when the file is
 * already as ralph would write it, so nothing need be written.
 */
export function normaliseEntries(
  document: MemoryDocument,
  now: string,
): { document: MemoryDocument; changed: number } {
  let changed = 0;
  const blocks = document.blocks.map((block): MemoryBlock => {
    if (block.kind !== 'entry' || isCanonical(block)) return block;
    changed += 1;
    const entry = { ...block.entry, timestamp: block.entry.timestamp ?? now };
    const crlf = (block.lines[0] ?? '').endsWith('\r') ? '\r' : '';
    const first = renderEntry({ ...entry, text: block.head }) + crlf;
    return { ...block, entry, lines: [first, ...block.lines.slice(1)] };
  });
  const sections = sectionsOf({ ...document, blocks });
  const first = new Map<MemoryCategory, Section>();
  const kept: Section[] = [];
  for (const section of sections) {
    const category = section.heading?.category;
    const earlier = category === undefined ? undefined : first.get(category);
    if (category !== undefined && earlier === undefined) first.set(category, section);
    if (earlier === undefined) {
      kept.push(section);
      continue;
    }
    changed += 1;
    const moved = section.blocks.filter((block) => !isBlank(block));
    earlier.blocks = appendTo(earlier.blocks, moved, earlier === sections.at(-1));
  }
  const merged = joinSections(kept);
  // A folded section at the end leaves the blank lines that preceded its heading.
  if (kept.length < sections.length) {
    while (merged.length > 1 && isBlank(merged.at(-1))) merged.pop();
  }
  return { document: { ...document, blocks: merged }, changed };
}
