import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles, corpusPath, describeCorpus } from '../../test/corpus.js';
import { RalphError } from '../util/errors.js';
import { nodeAt } from './json-path.js';
import { parseTaskList, readTaskListFile, type TaskListDocument } from './read.js';
import { applyStoryEdits, updateStories, writeTaskListFile } from './write.js';

async function copyToTemp(name: string, text?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-write-'));
  const file = join(dir, 'prd.json');
  await writeFile(file, text ?? readFileSync(corpusPath('plans', name)));
  return file;
}

/** Small task lists in each format and in several layouts, written for these tests. */
const FIXTURES: Record<string, string> = {
  'hybrid, two spaces, a story without passes': `${JSON.stringify(
    {
      description: 'd',
      userStories: [
        { id: 'S-1', title: 'a', passes: true, notes: ['one', 'two'] },
        { id: 'S-2', title: 'b', dependsOn: ['S-1'] },
        { id: 'S-3', title: 'c', passes: false, notes: '' },
      ],
    },
    null,
    2,
  )}\n`,
  'snarktank, four spaces, CRLF, no final newline': JSON.stringify(
    { project: 'p', userStories: [{ id: 'US-001', passes: false }, { id: 'US-002' }] },
    null,
    4,
  ).replace(/\n/g, '\r\n'),
  'feature list object, tabs': JSON.stringify(
    {
      features: [
        { id: 'F1', description: 'x', passes: false },
        { id: 'F2', passes: true },
      ],
    },
    null,
    '\t',
  ),
  'feature list array, one line, BOM': `\uFEFF[{"description": "a", "passes": false}, {"description": "b"}]`,
};

/** Each corpus file as [name, undefined] (read from the corpus), or each fixture with its text. */
const roundTrips = (names: string[], texts: Record<string, string> = {}) => [
  ...names.map((name): [string, string | undefined] => [name, undefined]),
  ...Object.entries(texts),
];

function storySpan(doc: TaskListDocument, index: number): { start: number; end: number } {
  const node = nodeAt(doc.json.root, [...doc.storiesPath, index]);
  if (node === undefined) throw new Error(`no story ${index}`);
  return node;
}

/**
 * Checks that `after` is `before` with exactly one value of story `index` changed: either the
 * passes value replaced in place, or one `"passes": …` member inserted into that story.
 */
function expectOnlyPassesChanged(doc: TaskListDocument, index: number, after: string): void {
  const before = doc.text;
  const passes = nodeAt(doc.json.root, [...doc.storiesPath, index, 'passes']);
  const value = String(!doc.taskList.stories[index]!.passes);
  if (passes !== undefined) {
    expect(after).toBe(before.slice(0, passes.start) + value + before.slice(passes.end));
    return;
  }
  let at = 0;
  while (at < before.length && before[at] === after[at]) at++;
  const inserted = after.slice(at, at + after.length - before.length);
  expect(before.slice(0, at) + inserted + before.slice(at)).toBe(after);
  expect(inserted.replace(/\s+/g, ' ')).toBe(`, "passes": ${value}`);
  const span = storySpan(doc, index);
  expect(at).toBeGreaterThan(span.start);
  expect(at).toBeLessThan(span.end);
}

/** The round trip on task lists: what was not changed keeps every byte. */
function roundTrip(cases: [string, string | undefined][]): void {
  it.each(cases)('%s: no change writes nothing and keeps every byte', async (name, text) => {
    const file = await copyToTemp(name, text);
    const original = await readFile(file);
    const doc = await readTaskListFile(file);
    expect(updateStories(doc, [])).toBe(doc.text);
    const same = doc.taskList.stories.map((s) => ({ id: s.id, passes: s.passes, notes: s.notes }));
    expect(updateStories(doc, same)).toBe(doc.text);
    expect(await writeTaskListFile(doc, same)).toBe(false);
    expect((await readFile(file)).equals(original)).toBe(true);
  });

  it.each(cases)('%s: flipping passes changes exactly that value', async (name, text) => {
    const file = await copyToTemp(name, text);
    const doc = await readTaskListFile(file);
    const count = doc.taskList.stories.length;
    for (const index of new Set([0, Math.floor(count / 2), count - 1])) {
      const story = doc.taskList.stories[index]!;
      const updated = updateStories(doc, [{ id: story.id, passes: !story.passes }]);
      expectOnlyPassesChanged(doc, index, updated);
      const reread = parseTaskList(updated, file).taskList;
      expect(reread.stories[index]).toEqual({ ...story, passes: !story.passes });
      expect(reread.stories.filter((_, i) => i !== index)).toEqual(
        doc.taskList.stories.filter((_, i) => i !== index),
      );
    }
    const last = doc.taskList.stories[count - 1]!;
    expect(await writeTaskListFile(doc, [{ id: last.id, passes: !last.passes }])).toBe(true);
    const written = await readTaskListFile(file);
    expect(written.taskList.stories[count - 1]!.passes).toBe(!last.passes);
    expect(await readdir(join(file, '..'))).toEqual(['prd.json']);
  });
}

describeCorpus('round trip on the corpus', () => {
  roundTrip(roundTrips(corpusFiles('plans', '.json')));
});

describe('round trip', () => {
  roundTrip(roundTrips([], FIXTURES));

  it('keeps a BOM on disk', async () => {
    const file = await copyToTemp('', '\uFEFF[\n  {"description": "a", "passes": false}\n]\n');
    const doc = await readTaskListFile(file);
    expect(await writeTaskListFile(doc, [{ id: '#1', passes: true }])).toBe(true);
    const bytes = await readFile(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).toBe('\uFEFF[\n  {"description": "a", "passes": true}\n]\n');
  });

  it('keeps a missing final newline', async () => {
    const stories = [{ id: 'docs', title: 'Docs', passes: true }];
    const file = await copyToTemp('', JSON.stringify({ stories }, null, 2));
    const doc = await readTaskListFile(file);
    expect(doc.text.endsWith('}')).toBe(true);
    const text = updateStories(doc, [{ id: 'docs', passes: false, notes: 'retry' }]);
    expect(text.endsWith('}')).toBe(true);
    expect(parseTaskList(text, file).taskList.stories[0]).toMatchObject({
      passes: false,
      notes: 'retry',
    });
  });

  it('writes notes back as a list where the file keeps a list', async () => {
    const story = { id: 'OPS-V4-001', title: 't', passes: false, notes: ['这是结构 story'] };
    const file = await copyToTemp('', `${JSON.stringify({ userStories: [story] }, null, 2)}\n`);
    const doc = await readTaskListFile(file);
    const text = updateStories(doc, [{ id: 'OPS-V4-001', notes: '第一\n第二' }]);
    expect(text).toContain('"notes": [\n        "第一",\n        "第二"\n      ]');
    const reread = parseTaskList(text, file).taskList.stories[0]!;
    expect(reread.notes).toBe('第一\n第二');
    expect(updateStories(doc, [{ id: 'OPS-V4-001', notes: '' }])).toContain('"notes": []');
  });
});

/** The same story list in a given layout; the first story has no passes field. */
function layout(indent: string, newline: string): string {
  return ['{', '"userStories": [', '{', '"id": "A",', '"title": "x"', '},', '{', '"id": "B",']
    .concat(['"passes": false', '}', ']', '}', ''])
    .map((line, i) => indent.repeat([0, 1, 2, 3, 3, 2, 2, 3, 3, 2, 1, 0, 0][i] ?? 0) + line)
    .join(newline);
}

describe('inserting a field', () => {
  it.each([
    ['two spaces', '  ', '\n'],
    ['four spaces', '    ', '\n'],
    ['tabs', '\t', '\n'],
    ['CRLF', '  ', '\r\n'],
  ])('matches the layout: %s', (_what, indent, newline) => {
    const text = layout(indent, newline);
    const doc = parseTaskList(text, 'prd.json');
    const updated = updateStories(doc, [{ id: 'A', passes: true }]);
    const inserted = `,${newline}${indent.repeat(3)}"passes": true`;
    expect(updated).toBe(text.replace('"title": "x"', `"title": "x"${inserted}`));
    expect(parseTaskList(updated, 'prd.json').taskList.stories[0]!.passes).toBe(true);
  });

  it.each([
    ['{"userStories": [{"id": "A", "title": "x"}]}', '{"id": "A", "title": "x", "passes": true}'],
    ['{"userStories": [{"id":"A","title":"x"}]}', '{"id":"A","title":"x","passes":true}'],
    ['{"userStories": [{ "id" : "A" }]}', '{ "id" : "A", "passes" : true }'],
    ['{"userStories": [{"id":"A"}]}', '{"id":"A", "passes":true}'],
    ['[{}]', '{"passes": true}'],
    ['[{ }]', '{"passes": true }'],
  ])('keeps a one-line object on one line: %s', (text, story) => {
    const doc = parseTaskList(text, 'prd.json');
    const updated = updateStories(doc, [{ id: doc.taskList.stories[0]!.id, passes: true }]);
    expect(updated).toContain(story);
    expect(parseTaskList(updated, 'prd.json').taskList.stories[0]!.passes).toBe(true);
  });

  it('opens an empty object that spans lines, in the file style', () => {
    const text = '[\r\n\t{\r\n\t}\r\n]';
    const updated = updateStories(parseTaskList(text, 'f.json'), [{ id: '#1', passes: true }]);
    expect(updated).toBe('[\r\n\t{\r\n\t\t"passes": true\r\n\t}\r\n]');
  });

  it('adds passes and notes together, in that order', () => {
    const text = layout('  ', '\n');
    const doc = parseTaskList(text, 'prd.json');
    const updated = updateStories(doc, [{ id: 'A', passes: true, notes: 'done "quoted" ✓' }]);
    expect(updated).toContain(
      '"title": "x",\n      "passes": true,\n      "notes": "done \\"quoted\\" ✓"\n',
    );
  });

  it('keeps a BOM, CRLF and the missing final newline', () => {
    const text = '\uFEFF{\r\n  "userStories": [\r\n    {"id": "A", "passes": false}\r\n  ]\r\n}';
    const doc = parseTaskList(text, 'prd.json');
    expect(updateStories(doc, [{ id: 'A', passes: true, notes: 'n' }])).toBe(
      '\uFEFF{\r\n  "userStories": [\r\n    {"id": "A", "passes": true, "notes": "n"}\r\n  ]\r\n}',
    );
  });

  it('lays out an inserted list over lines in a multi-line story', () => {
    const doc = parseTaskList(layout('  ', '\n'), 'prd.json');
    // (Ids must exist: the writer re-reads what it wrote, and dependsOn is checked.)
    const updated = applyStoryEdits(doc, [{ id: 'B', set: { dependsOn: ['A', 'A'] } }]);
    expect(updated).toContain(
      '"passes": false,\n      "dependsOn": [\n        "A",\n        "A"\n      ]\n    }',
    );
  });
});

describe('changes', () => {
  it('applies several changes to several stories at once', () => {
    const doc = parseTaskList(layout('  ', '\n'), 'prd.json');
    const updated = updateStories(doc, [
      { id: 'B', passes: true },
      { id: 'A', notes: 'a' },
      { id: 'B', notes: 'b' },
    ]);
    const stories = parseTaskList(updated, 'prd.json').taskList.stories;
    expect(stories.map((s) => [s.passes, s.notes])).toEqual([
      [false, 'a'],
      [true, 'b'],
    ]);
  });

  it('lets a later change to the same story win', () => {
    const doc = parseTaskList(layout('  ', '\n'), 'prd.json');
    const flipBack = [
      { id: 'B', passes: true, notes: 'x' },
      { id: 'B', passes: false },
    ];
    const stories = parseTaskList(updateStories(doc, flipBack), 'prd.json').taskList.stories;
    expect(stories[1]).toMatchObject({ passes: false, notes: 'x' });
  });

  it('does not add passes: false where passes is absent, since absent already reads as false', () => {
    const doc = parseTaskList(layout('  ', '\n'), 'prd.json');
    expect(updateStories(doc, [{ id: 'A', passes: false }])).toBe(doc.text);
  });

  it('refuses a change to a story that does not exist', () => {
    const doc = parseTaskList(layout('  ', '\n'), 'prd.json');
    const refuse = () => updateStories(doc, [{ id: 'Z', passes: true }]);
    expect(refuse).toThrow(RalphError);
    expect(refuse).toThrow(
      expect.objectContaining({
        code: 'INVALID_TASK_LIST',
        location: expect.objectContaining({ file: 'prd.json' }) as unknown,
        hint: expect.stringContaining('ralph validate') as unknown,
      }),
    );
  });
});
