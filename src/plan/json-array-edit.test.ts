import { describe, expect, it } from 'vitest';
import { applyTextSplices, insertItem, removeItems } from './json-array-edit.js';
import type { JsonArrayNode } from './json-node.js';
import { parseJsonText } from './json-text.js';

function arrayOf(text: string): { json: ReturnType<typeof parseJsonText>; array: JsonArrayNode } {
  const json = parseJsonText(text, 'x.json');
  const root = json.root;
  if (root.kind !== 'object') throw new Error('fixture');
  const array = root.members.find((m) => m.key === 'a')?.value;
  if (array?.kind !== 'array') throw new Error('fixture');
  return { json, array };
}

describe('insertItem / removeItems', () => {
  const multi = '{\n    "a": [\n        {"id": 1},\n        {"id": 2}\n    ],\n    "b": 0\n}\n';

  it('inserts laid out like the neighbours (four-space indent kept)', () => {
    const { json, array } = arrayOf(multi);
    const text = applyTextSplices(multi, [insertItem(json, array, 1, { id: 9 })]);
    expect(text).toBe(
      '{\n    "a": [\n        {"id": 1},\n        {\n            "id": 9\n        },\n        {"id": 2}\n    ],\n    "b": 0\n}\n',
    );
  });

  it('inserts first, last, and into an empty or one-line array', () => {
    const { json, array } = arrayOf(multi);
    expect(JSON.parse(applyTextSplices(multi, [insertItem(json, array, 0, 0)]))).toEqual({
      a: [0, { id: 1 }, { id: 2 }],
      b: 0,
    });
    expect(applyTextSplices(multi, [insertItem(json, array, 2, 3)])).toContain(
      '{"id": 2},\n        3\n    ]',
    );
    const empty = arrayOf('{"a": []}');
    expect(
      JSON.parse(applyTextSplices('{"a": []}', [insertItem(empty.json, empty.array, 0, 1)])),
    ).toEqual({ a: [1] });
    const inline = arrayOf('{"a": [1, 2]}');
    expect(applyTextSplices('{"a": [1, 2]}', [insertItem(inline.json, inline.array, 1, 7)])).toBe(
      '{"a": [1, 7, 2]}',
    );
  });

  it('removes runs of neighbours, the first, the last, and all', () => {
    const text = '{"a": [1, 2, 3, 4, 5]}';
    const { array } = arrayOf(text);
    expect(applyTextSplices(text, removeItems(array, [0, 1, 3]))).toBe('{"a": [3, 5]}');
    expect(applyTextSplices(text, removeItems(array, [4]))).toBe('{"a": [1, 2, 3, 4]}');
    expect(applyTextSplices(text, removeItems(array, [0, 1, 2, 3, 4]))).toBe('{"a": []}');
    const { array: lines } = arrayOf(multi);
    expect(applyTextSplices(multi, removeItems(lines, [0]))).toBe(
      '{\n    "a": [\n        {"id": 2}\n    ],\n    "b": 0\n}\n',
    );
  });
});
