import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  featureListArraySchema,
  featureListObjectSchema,
  prdHybridSchema,
  prdSnarktankSchema,
  prdStorySchema,
} from './task-list-schemas.js';
import { corpusPath, describeCorpus } from '../../test/corpus.js';

const load = (name: string): unknown => JSON.parse(readFileSync(corpusPath('plans', name), 'utf8'));

describeCorpus('task list schemas on the corpus', () => {
  it.each([
    ['hybrid-526-oauth.json', prdHybridSchema],
    ['yisu-prd-zh.json', prdHybridSchema],
    ['snarktank-prd-example.json', prdSnarktankSchema],
    ['ralph-tui-sample-prd.json', prdSnarktankSchema],
    ['mini-jwt-feature-list.json', featureListObjectSchema],
    ['appointment-feature-list.json', featureListObjectSchema],
    ['mathweb-feature-list.json', featureListArraySchema],
    ['fleet-e2e-toy-features.json', featureListArraySchema],
  ])('accept real files (%s)', (name, schema) => {
    expect(schema.safeParse(load(name)).success).toBe(true);
  });
});

describe('task list schemas', () => {
  const story = { id: 'S-1', title: 't', acceptanceCriteria: ['a'], priority: 1, passes: false };
  it.each([
    [prdHybridSchema, { description: 'd', createdAt: '2026-01-01', userStories: [story] }],
    [prdSnarktankSchema, { project: 'p', branchName: 'b', userStories: [story] }],
    [featureListObjectSchema, { features: [{ id: 'F1', description: 'd', passes: false }] }],
    [featureListArraySchema, [{ description: 'd', steps: ['s'], passes: true }]],
  ])('accept a small list of each format (%#)', (schema, value) => {
    expect(schema.safeParse(value).success).toBe(true);
  });

  it('accept the amendment metadata ralph amend writes', () => {
    const amended = {
      id: 'STORY-003',
      amendment: {
        id: 'AMD-002',
        type: 'correct',
        timestamp: '2026-01-09T15:10:00Z',
        reason: 'Email validation was underspecified',
        changes: {
          acceptanceCriteria: { before: ['Email field is required'], after: ['RFC 5322'] },
          passesReset: true,
        },
      },
    };
    expect(prdStorySchema.parse(amended)).toEqual(amended);
  });

  it('let unknown fields through untouched', () => {
    const story = { id: 'S-1', labels: ['x'], checkpoint: true, nested: { a: 1 } };
    expect(prdStorySchema.parse(story)).toEqual(story);
  });

  it('refuse present fields of the wrong type', () => {
    for (const bad of [
      { id: 'S-1', passes: 'true' },
      { id: 'S-1', priority: 'urgent' },
      { id: 'S-1', acceptanceCriteria: 'works' },
      { id: 'S-1', mcpServers: 'github' },
      { id: 'S-1', amendment: { id: 'A', type: 'rewrite' } },
      { id: 'S-1', amendment: { id: 'A', type: 'correct', changes: { passesReset: 'yes' } } },
      { id: 'S-1', amendment: { id: 'A', type: 'correct', changes: { title: 'new' } } },
      { id: '' },
      { title: 'no id' },
    ]) {
      expect(prdStorySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it.each([
    ['prd-hybrid', prdHybridSchema],
    ['prd-snarktank', prdSnarktankSchema],
    ['feature-list-object', featureListObjectSchema],
    ['feature-list-array', featureListArraySchema],
  ])('export %s to JSON Schema with descriptions', (_name, schema) => {
    const json = JSON.stringify(z.toJSONSchema(schema));
    expect(json).toContain('"description"');
    expect(json).toContain('1 = highest');
    expect(json).toContain('"additionalProperties":{}');
  });
});
