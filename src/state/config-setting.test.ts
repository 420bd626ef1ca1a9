import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  choice,
  fileSchemaOf,
  fullDescription,
  list,
  nonNegativeNumber,
  requirementOf,
  resolvedSchemaOf,
  section,
  wholeNumber,
} from './config-setting.js';

const TABLE = {
  count: wholeNumber(1, { description: 'How many.', default: 3 }),
  delay: nonNegativeNumber({ description: 'Seconds.', zeroMeans: 'off', default: 2 }),
  mode: choice(['a', 'b'], { description: 'The mode.', default: 'a' }),
  paths: list({ description: 'Paths.', requirement: 'a list of paths', default: ['/tmp'] }),
  outside: list({
    description: 'Filled in elsewhere.',
    requirement: 'a list of names',
    default: ['x'],
    defaultIn: 'another module',
  }),
  nested: section('A mapping.', {
    limit: wholeNumber(0, { description: 'A limit.', defaultText: 'no limit' }),
  }),
};

describe('a settings table', () => {
  it('gives a file schema with every key optional and none unknown', () => {
    const file = fileSchemaOf(TABLE);
    expect(file.parse({})).toEqual({});
    expect(file.safeParse({ count: 0 }).success).toBe(false);
    expect(file.safeParse({ mode: 'c' }).success).toBe(false);
    expect(file.safeParse({ nested: { limt: 1 } }).success).toBe(false);
    expect(file.parse({ delay: 0, nested: { limit: 0 } })).toEqual({
      delay: 0,
      nested: { limit: 0 },
    });
  });

  it('gives a resolved schema with the defaults it owns applied, each time a fresh copy', () => {
    const resolved = resolvedSchemaOf(TABLE);
    const first = resolved.parse({});
    expect(first).toEqual({ count: 3, delay: 2, mode: 'a', paths: ['/tmp'], nested: {} });
    first.paths.push('/var');
    expect(resolved.parse({}).paths).toEqual(['/tmp']);
    expect(resolved.parse({ outside: ['y'], count: 7 })).toMatchObject({
      outside: ['y'],
      count: 7,
    });
  });

  it('says the default, what 0 means and the environment variable in the description', () => {
    expect(fullDescription(TABLE.delay, ['delay'])).toBe(
      'Seconds. 0 turns it off. Default 2. Environment: RALPH_DELAY.',
    );
    expect(fullDescription(TABLE.paths, ['paths'])).toBe(
      'Paths. Default [/tmp]; a list you set replaces it. Environment: RALPH_PATHS.',
    );
    expect(fullDescription(TABLE.nested.section.limit, ['nested', 'limit'])).toBe(
      'A limit. Default: no limit. Environment: RALPH_NESTED_LIMIT.',
    );
    const schema = z.toJSONSchema(fileSchemaOf(TABLE)) as {
      properties: Record<string, { default?: unknown }>;
    };
    expect(schema.properties.count?.default).toBe(3);
  });

  it('words what a valid value looks like', () => {
    expect(requirementOf(TABLE.count)).toBe('a whole number ≥ 1');
    expect(requirementOf(TABLE.delay)).toBe('a number ≥ 0 (0: off)');
    expect(requirementOf(TABLE.mode)).toBe('one of a, b');
    expect(requirementOf(TABLE.nested)).toBe('a mapping (limit)');
  });
});
