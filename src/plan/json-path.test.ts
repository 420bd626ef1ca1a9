import { describe, expect, it } from 'vitest';
import { formatPath, nearestNode, nodeAt } from './json-path.js';
import type { JsonNode } from './json-node.js';
import { parseJsonText } from './json-text.js';

function source(text: string, node: JsonNode | undefined): string {
  if (node === undefined) throw new Error('no node');
  return text.slice(node.start, node.end);
}

describe('nodeAt and nearestNode', () => {
  it('records the source span of every value', () => {
    const text = '{\n  "a": [1, {"b": "x\\"y"}],\n  "c": -1.5e3, "d": null\n}';
    const { root } = parseJsonText(text, 'f.json');
    expect(source(text, nodeAt(root, ['a']))).toBe('[1, {"b": "x\\"y"}]');
    expect(source(text, nodeAt(root, ['a', 1, 'b']))).toBe('"x\\"y"');
    expect(source(text, nodeAt(root, ['c']))).toBe('-1.5e3');
    expect(source(text, nodeAt(root, ['d']))).toBe('null');
    expect(nodeAt(root, ['a', 5])).toBeUndefined();
    expect(nodeAt(root, ['a', 'b'])).toBeUndefined();
    expect(source(text, nearestNode(root, ['a', 1, 'missing']))).toBe('{"b": "x\\"y"}');
  });
});

describe('formatPath', () => {
  it('writes paths the way people read them', () => {
    expect(formatPath(['userStories', 3, 'passes'])).toBe('userStories[3].passes');
    expect(formatPath([2, 'steps', 0])).toBe('[2].steps[0]');
    expect(formatPath(['odd key'])).toBe('["odd key"]');
    expect(formatPath([])).toBe('');
  });
});
