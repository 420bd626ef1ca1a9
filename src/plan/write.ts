import { writeFileAtomic } from '../state/atomic-write.js';
import { RalphError } from '../util/errors.js';
import { isOnOneLine, lineIndentAt } from './json-position.js';
import { nodeAt } from './json-path.js';
import type { JsonNode, JsonObjectNode } from './json-node.js';
import { parseTaskList, type TaskListDocument } from './read.js';

/**
 * The round-trip writer. It never re-serialises the file: it splices new values into the
 * original text at the offsets the scanner recorded, so unknown fields, key order, spacing,
 * a BOM and the presence or absence of a final newline stay byte-identical, and a diff of the
 * file shows only what ralph changed.
 */

export interface StoryChange {
  id: string;
  passes?: boolean;
  notes?: string;
}

export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Set fields of one story; fields that are absent are added as the story's last properties. */
export interface StoryEdit {
  id: string;
  set: Record<string, JsonValue>;
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

/** New text with only the changed values different; unchanged values are left alone. */
export function updateStories(doc: TaskListDocument, changes: readonly StoryChange[]): string {
  // Later changes to the same story win, field by field, as if applied one after another.
  const merged = new Map<string, StoryChange>();
  for (const change of changes) {
    const earlier = merged.get(change.id) ?? { id: change.id };
    merged.set(change.id, {
      id: change.id,
      passes: change.passes ?? earlier.passes,
      notes: change.notes ?? earlier.notes,
    });
  }
  return applyStoryEdits(
    doc,
    [...merged.values()].map((change) => editFor(doc, change)),
  );
}

/**
 * Writes the change atomically, only when the text changed; returns whether it wrote. The new
 * text is `doc`'s text with the changes spliced in: read the file again first when someone (the
 * agent, a person) may have written it since `doc` was read, or their change is undone.
 */
export async function writeTaskListFile(
  doc: TaskListDocument,
  changes: readonly StoryChange[],
): Promise<boolean> {
  const text = updateStories(doc, changes);
  if (text === doc.text) return false;
  await writeFileAtomic(doc.file, text);
  return true;
}

function editFor(doc: TaskListDocument, change: StoryChange): StoryEdit {
  const story = doc.taskList.stories.find((s) => s.id === change.id);
  if (story === undefined) throw unknownStory(doc, change.id);
  const set: Record<string, JsonValue> = {};
  // An absent passes already reads as false; writing it would only add noise to the diff.
  if (change.passes !== undefined && change.passes !== story.passes) set.passes = change.passes;
  if (change.notes !== undefined && change.notes !== story.notes) {
    const current = storyObject(doc, story.index).members.find((m) => m.key === 'notes');
    // The reader joins a list of notes into lines; write lines back so the type stays a list.
    const lines = change.notes === '' ? [] : change.notes.split(/\r?\n/);
    set.notes = current?.value.kind === 'array' ? lines : change.notes;
  }
  return { id: change.id, set };
}

/** The general primitive: set any fields of any stories, keeping everything else as it was. */
export function applyStoryEdits(doc: TaskListDocument, edits: readonly StoryEdit[]): string {
  const merged = new Map<number, Record<string, JsonValue>>();
  for (const edit of edits) {
    const story = doc.taskList.stories.find((s) => s.id === edit.id);
    if (story === undefined) throw unknownStory(doc, edit.id);
    merged.set(story.index, { ...merged.get(story.index), ...edit.set });
  }
  const splices: Splice[] = [];
  for (const [index, fields] of merged) {
    splices.push(...splicesFor(doc, storyObject(doc, index), fields));
  }
  if (splices.length === 0) return doc.text;
  const text = applySplices(doc.text, splices);
  assertReparses(doc, text);
  return text;
}

function splicesFor(
  doc: TaskListDocument,
  object: JsonObjectNode,
  fields: Record<string, JsonValue>,
): Splice[] {
  const splices: Splice[] = [];
  const added: [string, JsonValue][] = [];
  for (const [key, value] of Object.entries(fields)) {
    const member = object.members.find((m) => m.key === key);
    if (member === undefined) {
      added.push([key, value]);
      continue;
    }
    const multiline = !isOnOneLine(doc.text, member.value.start, member.value.end);
    const text = serialise(doc, value, multiline ? lineIndentAt(doc.text, member.keyStart) : null);
    if (text !== doc.text.slice(member.value.start, member.value.end)) {
      splices.push({ start: member.value.start, end: member.value.end, text });
    }
  }
  if (added.length > 0) splices.push(insertion(doc, object, added));
  return splices;
}

/** New members go last, laid out like the members before them (or inline for `{…}` on one line). */
function insertion(
  doc: TaskListDocument,
  object: JsonObjectNode,
  added: [string, JsonValue][],
): Splice {
  const { text } = doc;
  const last = object.members.at(-1);
  const beforeLast = object.members.at(-2);
  let gap: string;
  let colon = ': ';
  let at: number;
  let lead: string;
  if (last === undefined) {
    at = object.start + 1;
    gap = isOnOneLine(text, object.start, object.end)
      ? ' '
      : doc.json.style.newline + lineIndentAt(text, object.start) + doc.json.style.indent;
    lead = gap === ' ' ? '' : gap;
  } else {
    at = last.value.end;
    const between = text.slice(last.keyEnd, last.value.start);
    if (!between.includes('\n')) colon = between;
    if (beforeLast === undefined) {
      // With one member there is no gap after a comma to copy; the one after '{' is closest.
      gap = text.slice(object.start + 1, last.keyStart) || ' ';
    } else {
      gap = text.slice(text.indexOf(',', beforeLast.value.end) + 1, last.keyStart);
    }
    lead = ',' + gap;
  }
  const indent = gap.includes('\n') ? (/[ \t]*$/.exec(gap)?.[0] ?? '') : null;
  const members = added.map(
    ([key, value]) => `${JSON.stringify(key)}${colon}${serialise(doc, value, indent)}`,
  );
  return { start: at, end: at, text: lead + members.join(',' + gap) };
}

/** JSON for a value: inline, or over several lines that start at `indent` when that is given. */
function serialise(doc: TaskListDocument, value: JsonValue, indent: string | null): string {
  if (indent === null || typeof value !== 'object' || value === null) return JSON.stringify(value);
  const { indent: unit, newline } = doc.json.style;
  return JSON.stringify(value, null, unit)
    .split('\n')
    .join(newline + indent);
}

function applySplices(text: string, splices: Splice[]): string {
  const ordered = [...splices].sort((a, b) => a.start - b.start);
  let result = '';
  let cursor = 0;
  for (const splice of ordered) {
    if (splice.start < cursor) throw new Error('internal: overlapping edits of the task list');
    result += text.slice(cursor, splice.start) + splice.text;
    cursor = splice.end;
  }
  return result + text.slice(cursor);
}

function storyObject(doc: TaskListDocument, index: number): JsonObjectNode {
  const node: JsonNode | undefined = nodeAt(doc.json.root, [...doc.storiesPath, index]);
  // The schema only admits objects as stories, so anything else means doc and text disagree.
  if (node?.kind !== 'object') throw new Error(`internal: story ${index} is not an object`);
  return node;
}

function assertReparses(doc: TaskListDocument, text: string): void {
  try {
    parseTaskList(text, doc.file);
  } catch (error) {
    throw new Error('internal: the task list writer produced text that does not parse', {
      cause: error,
    });
  }
}

function unknownStory(doc: TaskListDocument, id: string): RalphError {
  return new RalphError(
    'INVALID_TASK_LIST',
    `${doc.file}: no story with id ${JSON.stringify(id)}`,
    {
      location: { file: doc.file },
      hint: 'the task list changed since ralph read it; run `ralph validate` and try again',
    },
  );
}
