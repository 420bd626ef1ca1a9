// Writes schemas/*.json from the zod schemas and the README's configuration table from the
// settings table (run through `npm run schemas`, which builds first).
import { readFile, writeFile } from 'node:fs/promises';
import { publishedSchemas, serialiseSchema } from '../dist/cli/json-schemas.js';
import { withConfigTable } from '../dist/state/config-docs.js';

for (const [name, schema] of Object.entries(publishedSchemas())) {
  const target = new URL(`../schemas/${name}`, import.meta.url);
  await writeFile(target, serialiseSchema(schema));
  console.log(`wrote schemas/${name}`);
}

const readme = new URL('../README.md', import.meta.url);
await writeFile(readme, withConfigTable(await readFile(readme, 'utf8')));
console.log('wrote the configuration table of README.md');
