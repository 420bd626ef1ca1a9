/**
 * A JSON value with the source offsets of every part (json-text.ts parses into it): what the
 * round-trip writer replaces in place and what validation errors point at.
 */

interface Span {
  /** Offset of the value's first character in the original text. */
  start: number;
  /** Offset just past the value's last character. */
  end: number;
}

export interface JsonMember {
  key: string;
  keyStart: number;
  keyEnd: number;
  value: JsonNode;
}

export interface JsonObjectNode extends Span {
  kind: 'object';
  members: JsonMember[];
}

export interface JsonArrayNode extends Span {
  kind: 'array';
  items: JsonNode[];
}

export interface JsonScalarNode extends Span {
  kind: 'string' | 'number' | 'boolean' | 'null';
  value: string | number | boolean | null;
}

export type JsonNode = JsonObjectNode | JsonArrayNode | JsonScalarNode;
