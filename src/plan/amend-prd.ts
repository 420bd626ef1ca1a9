import { RalphError } from '../util/errors.js';
import { applyTextSplices, insertItem, removeItems, type PlainJson } from './json-array-edit.js';
import { nodeAt } from './json-path.js';
import { parseTaskList, type TaskListDocument } from './read.js';
import { applyStoryEdits, type StoryEdit } from './write.js';

/**
 * One change of prd.json made of field edits, whole stories added and whole stories removed,
 * each spliced into the original text: the result differs from the file only there.
 */
export interface PrdChange {
  set?: readonly StoryEdit[];
  /** Stories to add; each goes after the story `after` names, first for null, last for undefined. */
  insert?: readonly { after: string | null | undefined; value: PlainJson }[];
  remove?: readonly string[];
}

export function changePrd(doc: TaskListDocument, change: PrdChange): string {
  let current = doc;
  const set = change.set ?? [];
  if (set.length > 0) current = parseTaskList(applyStoryEdits(current, set), doc.file);
  const array = nodeAt(current.json.root, current.storiesPath);
  if (array?.kind !== 'array') throw new Error('internal: the stories are not an array');
  const indices = (change.remove ?? []).map((id) => {
    const story = current.taskList.stories.find((s) => s.id === id);
    if (story === undefined) throw unknownStory(doc.file, id);
    return story.index;
  });
  const splices = removeItems(array, indices);
  for (const { after, value } of change.insert ?? []) {
    const anchor =
      typeof after === 'string' ? current.taskList.stories.find((s) => s.id === after) : undefined;
    if (typeof after === 'string' && anchor === undefined) throw unknownStory(doc.file, after);
    const index = after === null ? 0 : (anchor?.index ?? array.items.length - 1) + 1;
    splices.push(insertItem(current.json, array, index, value));
  }
  const text = applyTextSplices(current.text, splices);
  parseTaskList(text, doc.file);
  return text;
}

function unknownStory(file: string, id: string): RalphError {
  return new RalphError('INVALID_TASK_LIST', `${file}: no story with id ${JSON.stringify(id)}`, {
    location: { file },
    hint: 'run `ralph amend status` to see the stories, or `ralph validate` to check the files',
  });
}
