import { z } from 'zod';
import {
  featureListArraySchema,
  featureListObjectSchema,
  prdHybridSchema,
  prdSnarktankSchema,
} from '../plan/task-list-schemas.js';
import { configFileSchema } from '../state/config-schema.js';

/**
 * The JSON Schemas published in schemas/ for editors and other tools, generated from the same
 * zod schemas ralph validates with, so the two cannot drift (a test compares them to the files).
 */
export function publishedSchemas(): Record<string, unknown> {
  return {
    'prd.schema.json': document(
      'prd.json',
      'A ralph task list (prd.json): ralph-hybrid, snarktank style, or a bare array of stories.',
      z.union([prdHybridSchema, prdSnarktankSchema, featureListArraySchema]),
    ),
    'feature-list.schema.json': document(
      'feature_list.json',
      'A ralph task list (feature_list.json): the Ralph Loop v2 object or the bare array.',
      z.union([featureListObjectSchema, featureListArraySchema]),
    ),
    'config.schema.json': document(
      'ralph config.yaml',
      'ralph configuration (~/.config/ralph/config.yaml and .ralph/config.yaml).',
      configFileSchema,
    ),
  };
}

function document(title: string, description: string, schema: z.ZodType): unknown {
  return {
    ...z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }),
    title,
    description,
  };
}

export function serialiseSchema(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
