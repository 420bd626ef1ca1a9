// Part of `npm run build`: copies the bash grammar's WebAssembly build (and its MIT licence)
// from the tree-sitter-bash devDependency beside dist/guard/shell/parse.js, so the published
// package carries the grammar and needs no package with an install script (src/guard/shell/parse.ts).
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const source = dirname(require.resolve('tree-sitter-bash/package.json'));
const target = new URL('../dist/guard/shell/', import.meta.url).pathname;
mkdirSync(target, { recursive: true });
copyFileSync(join(source, 'tree-sitter-bash.wasm'), join(target, 'tree-sitter-bash.wasm'));
copyFileSync(join(source, 'LICENSE'), join(target, 'tree-sitter-bash.LICENSE'));
