import { z } from 'zod';
import {
  featureListArraySchema,
  featureListObjectSchema,
  prdHybridSchema,
  prdSnarktankSchema,
} from '../plan/task-list-schemas.js';
import { CONFIG_FILE_ALIASES, configFileSchema } from '../state/config-schema.js';

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
    'config.schema.json': withFileAliases(
      document(
        'ralph config.yaml',
        'ralph configuration (~/.config/ralph/config.yaml and .ralph/config.yaml).',
        configFileSchema,
      ),
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

/** Other spellings a config file may use (`quality_checks`), so editors accept them too. */
export function withFileAliases(schema: unknown): unknown {
  const document = schema as { properties?: Record<string, Record<string, unknown>> };
  const properties = { ...document.properties };
  for (const [alias, key] of Object.entries(CONFIG_FILE_ALIASES)) {
    const target = properties[key];
    if (target === undefined) continue;
    properties[alias] = { ...target, description: `Another spelling of ${key}.` };
  }
  return { ...document, properties };
}

export function serialiseSchema(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
