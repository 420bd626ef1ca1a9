// `npm run build`, second step: bundles the CLI entry (src/cli/bin.ts) over tsc's dist/cli/bin.js.
// Why: loading ~340 files (163 of ours, ~100 of zod, ~70 of yaml) cost more than any command's own
// work; `ralph status` ran at 4-8× `node -e 0` (design.md §6, issue 10). The bundle is one entry
// file plus lazy chunks (the `import()`s in bin.ts and in the commands stay lazy: the stop-hook and
// guard paths, ink's TUI, the shell parser), all written beside bin.js as dist/cli/bundle-*.js.
// tsc still emits everything else: the library entry (dist/index.js) and the declarations.
//
// Packages bundled in are the pure-JS ones every command loads (BUNDLED); every other dependency
// stays an ordinary import from node_modules (native or WASM parsers that find their files next to
// themselves, ink/React that only `ralph monitor` loads).
//
// Source files find their templates and package.json through `new URL('../..', import.meta.url)`.
// In the bundle every module lives in dist/cli/, so each module's `import.meta.url` is rewritten to
// the URL its tsc output would have (dist/<same path>.js): the relative paths keep working.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const OUT = join(ROOT, 'dist/cli');
const BUNDLED = new Set(['zod', 'yaml', 'commander', '@commander-js/extra-typings']);

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const external = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })
  .filter((name) => !BUNDLED.has(name))
  .flatMap((name) => [name, `${name}/*`]);

const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(SRC + sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (/import\.meta\.(dirname|filename)/.test(source)) {
        throw new Error(`${args.path}: use import.meta.url (the bundle rewrites only that)`);
      }
      const built = join(ROOT, 'dist', relative(SRC, args.path)).replace(/\.ts$/, '.js');
      const fromOut = relative(OUT, dirname(built)).split(sep).join('/') || '.';
      const url = `new URL(${JSON.stringify(`${fromOut}/${built.split(sep).pop()}`)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

// zod's entry re-exports all its ~50 message locales (a third of the bundle's bytes, parsed by every
// command); ralph keeps zod's default English, so the locales module is only `en`.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${sep}node_modules${sep}zod${sep}`)
        ? { path: join(dirname(args.importer), '../locales/index.js'), namespace: 'zod-locales' }
        : undefined,
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};

for (const name of readdirSync(OUT)) {
  if (name.startsWith('bundle-')) rmSync(join(OUT, name));
}
await build({
  entryPoints: { bin: join(SRC, 'cli/bin.ts') },
  outdir: OUT,
  chunkNames: 'bundle-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  allowOverwrite: true,
  logLevel: 'warning',
  legalComments: 'none',
  // Less to parse at every start; names kept for error classes and stack traces.
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  // commander and yaml are CommonJS and require() node's built-ins; an ES module has no require.
  banner: {
    js: "import { createRequire as __ralphCreateRequire } from 'node:module';\nconst require = __ralphCreateRequire(import.meta.url);",
  },
  plugins: [keepImportMetaUrl, zodEnglishOnly],
});
