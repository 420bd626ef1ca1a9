import { z } from 'zod';
import { RalphError } from '../../util/errors.js';
import {
  idsIn,
  parsePriority,
  shortTitle,
  statusPasses,
  type ImportedPlan,
  type ImportedStory,
} from './story-fields.js';

/**
 * External JSON PRDs to stories: an object with `userStories`, `stories`, `features`,
 * `requirements` or `tasks` (also one level down, `{prd: {userStories: …}}`), or a bare array.
 * Items are read loosely — field names vary between tools — but every value is checked for its
 * type before use, so a field of the wrong type is ignored with a warning rather than guessed at.
 */

const LIST_KEYS = ['userStories', 'stories', 'features', 'requirements', 'tasks', 'items'];

const itemSchema = z.record(z.string(), z.unknown());

export function importJson(text: string, file: string): ImportedPlan {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new RalphError('INVALID_JSON', `${file} is not valid JSON: ${(error as Error).message}`, {
      location: { file },
      hint: 'fix the JSON, or pass --format markdown if the file is Markdown; nothing was written',
    });
  }
  const found = findList(value);
  if (found === undefined) {
    throw new RalphError('INVALID_TASK_LIST', `${file}: no list of tasks found`, {
      location: { file },
      hint: `ralph import reads a JSON array, or an object with one of: ${LIST_KEYS.join(', ')}; nothing was written`,
    });
  }
  const warnings: string[] = [];
  const stories: ImportedStory[] = [];
  found.list.forEach((raw, index) => {
    const where = `${found.key ?? ''}[${index}]`;
    const item = itemSchema.safeParse(raw);
    if (!item.success) {
      if (typeof raw === 'string' && raw.trim() !== '') stories.push(fromString(raw, where));
      else warnings.push(`${where}: not an object, skipped`);
      return;
    }
    stories.push(fromItem(item.data, where, warnings));
  });
  const top = itemSchema.safeParse(found.parent);
  const meta = top.success ? top.data : {};
  return {
    title: firstString(meta, ['project', 'name', 'title', 'task_name', 'feature']),
    description: firstString(meta, ['description', 'summary', 'overview']),
    stories,
    style: found.key === undefined ? 'JSON array' : `JSON "${found.key}"`,
    warnings,
  };
}

function findList(
  value: unknown,
): { list: unknown[]; key: string | undefined; parent: unknown } | undefined {
  if (Array.isArray(value)) return { list: value, key: undefined, parent: undefined };
  const object = itemSchema.safeParse(value);
  if (!object.success) return undefined;
  for (const key of LIST_KEYS) {
    const list = object.data[key];
    if (Array.isArray(list) && list.length > 0) return { list, key, parent: value };
  }
  // One level down: `{prd: {...}}`, `{meta: …, plan: {tasks: […]}}`.
  for (const nested of Object.values(object.data)) {
    if (Array.isArray(nested)) continue;
    const inner = itemSchema.safeParse(nested);
    if (!inner.success) continue;
    for (const key of LIST_KEYS) {
      const list = inner.data[key];
      if (Array.isArray(list) && list.length > 0) return { list, key, parent: nested };
    }
  }
  return undefined;
}

function fromString(text: string, where: string): ImportedStory {
  return {
    id: undefined,
    title: shortTitle(text),
    description: text.trim(),
    acceptanceCriteria: [shortTitle(text)],
    priority: undefined,
    passes: false,
    dependsOn: [],
    notes: undefined,
    where,
  };
}

function fromItem(item: Record<string, unknown>, where: string, warnings: string[]): ImportedStory {
  const rawId = item.id ?? item.key ?? item.storyId ?? item.story_id ?? item.ID;
  const id =
    typeof rawId === 'string' && rawId.trim() !== ''
      ? rawId.trim()
      : typeof rawId === 'number'
        ? String(rawId)
        : undefined;
  const description = firstString(item, ['description', 'details', 'body', 'summary', 'text']);
  const title = firstString(item, ['title', 'name', 'summary']) ?? description ?? id ?? where;
  const criteria = firstList(item, [
    'acceptanceCriteria',
    'acceptance_criteria',
    'criteria',
    'steps',
    'tests',
    'acceptance',
    'checks',
  ]);
  const notes = item.notes;
  return {
    id,
    title: shortTitle(title),
    description: description ?? title,
    acceptanceCriteria: criteria,
    priority: parsePriority(item.priority),
    passes: passesOf(item, where, warnings),
    dependsOn: dependencies(item),
    notes:
      typeof notes === 'string' && notes !== ''
        ? notes
        : Array.isArray(notes)
          ? notes.filter((line): line is string => typeof line === 'string').join('\n') || undefined
          : undefined,
    where,
  };
}

function passesOf(item: Record<string, unknown>, where: string, warnings: string[]): boolean {
  for (const key of ['passes', 'done', 'completed', 'complete', 'passed']) {
    const value = item[key];
    if (value === undefined || value === null) continue;
    if (typeof value === 'boolean') return value;
    warnings.push(`${where}.${key} is ${JSON.stringify(value)}, not true/false: read as open`);
    return false;
  }
  const status = item.status ?? item.state;
  if (typeof status === 'string') return statusPasses(status) ?? false;
  return false;
}

function dependencies(item: Record<string, unknown>): string[] {
  for (const key of ['dependsOn', 'dependencies', 'depends_on', 'blockedBy', 'requires']) {
    const value = item[key];
    if (Array.isArray(value)) {
      return value.flatMap((each) =>
        typeof each === 'string' ? [each] : typeof each === 'number' ? [String(each)] : [],
      );
    }
    if (typeof value === 'string') return idsIn(value);
  }
  return [];
}

function firstString(item: Record<string, unknown>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = item[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** Criteria as strings: plain strings, or objects with a description/text/criterion field. */
function firstList(item: Record<string, unknown>, keys: readonly string[]): string[] {
  for (const key of keys) {
    const value = item[key];
    if (typeof value === 'string' && value.trim() !== '') return [value.trim()];
    if (!Array.isArray(value)) continue;
    const texts = value.flatMap((entry) => {
      if (typeof entry === 'string') return entry.trim() === '' ? [] : [entry.trim()];
      const object = itemSchema.safeParse(entry);
      if (!object.success) return [];
      const text = firstString(object.data, ['description', 'text', 'criterion', 'title', 'name']);
      return text === undefined ? [] : [text];
    });
    if (texts.length > 0) return texts;
  }
  return [];
}
