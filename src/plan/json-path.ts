import type { JsonNode } from './json-node.js';

/** A field path such as `['userStories', 3, 'passes']`. */
export type JsonPath = readonly (string | number)[];

/** The node at `path`, or undefined when some step of the path does not exist. */
export function nodeAt(root: JsonNode, path: JsonPath): JsonNode | undefined {
  let node: JsonNode | undefined = root;
  for (const step of path) {
    if (node === undefined) return undefined;
    node = childOf(node, step);
  }
  return node;
}

/** The deepest existing node along `path`: where to point at a field that is missing. */
export function nearestNode(root: JsonNode, path: JsonPath): JsonNode {
  let node: JsonNode = root;
  for (const step of path) {
    const child = childOf(node, step);
    if (child === undefined) break;
    node = child;
  }
  return node;
}

function childOf(node: JsonNode, step: string | number): JsonNode | undefined {
  if (node.kind === 'object' && typeof step === 'string') {
    return node.members.find((member) => member.key === step)?.value;
  }
  if (node.kind === 'array' && typeof step === 'number') return node.items[step];
  return undefined;
}

/** `userStories[3].passes`: the form people read in messages and SourceLocation.field. */
export function formatPath(path: JsonPath): string {
  let text = '';
  for (const step of path) {
    if (typeof step === 'number') text += `[${step}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(step)) text += text === '' ? step : `.${step}`;
    else text += `[${JSON.stringify(step)}]`;
  }
  return text;
}
