import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { publishedSchemas, serialiseSchema } from './json-schemas.js';

const SCHEMAS_DIR = new URL('../../schemas/', import.meta.url);

describe('published JSON Schemas', () => {
  for (const [name, schema] of Object.entries(publishedSchemas())) {
    it(`schemas/${name} is current (run \`npm run schemas\` after changing a zod schema)`, async () => {
      const onDisk = await readFile(new URL(name, SCHEMAS_DIR), 'utf8');
      expect(onDisk).toBe(serialiseSchema(schema));
    });
  }

  it('lets config.schema.json accept quality_checks, the Ralph Hybrid spelling of qualityChecks', () => {
    const config = publishedSchemas()['config.schema.json'] as {
      properties: Record<string, { type?: string; description?: string }>;
    };
    expect(config.properties.quality_checks).toMatchObject({
      type: config.properties.qualityChecks?.type,
      description: 'Another spelling of qualityChecks.',
    });
  });
});
