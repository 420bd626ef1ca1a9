// Writes schemas/*.json from the zod schemas (run through `npm run schemas`, which builds first).
import { writeFile } from 'node:fs/promises';
import { publishedSchemas, serialiseSchema } from '../dist/cli/json-schemas.js';

for (const [name, schema] of Object.entries(publishedSchemas())) {
  const target = new URL(`../schemas/${name}`, import.meta.url);
  await writeFile(target, serialiseSchema(schema));
  console.log(`wrote schemas/${name}`);
}
