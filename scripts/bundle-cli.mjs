// `npm run build`, second step: bundles the CLI (src/cli/entry.ts) into one CommonJS file,
// dist/cli/bundle.cjs, beside the launcher dist/cli/bin.cjs (copied from src/cli/bin.cjs), and
// writes V8's code cache for it. Why: loading ~340 files (163 of ours, ~100 of zod, ~70 of yaml)
// cost more than any command's own work; `ralph status` ran at 4-8× `node -e 0` (design.md §6,
// issue 10). An ES-module bundle with lazy chunks halved that; what was left was Node 20's ES
// module loader and compiling the bundle at every start, which only a CommonJS script compiled
// with a code cache avoids (src/cli/bin.cjs says why). esbuild keeps the `import()`s of our own
// modules lazy in a CommonJS bundle too (a module's top level runs when first imported), so a
// command still runs only the modules it uses. tsc still emits everything else: the library entry
// (dist/index.js), the declarations and dist/cli/bin.js, which hands over to the launcher.
//
// Packages bundled in are the pure-JS ones every command loads (BUNDLED); every other dependency
// stays an ordinary import from node_modules (native or WASM parsers that find their files next to
// themselves, ink/React that only `ralph monitor` loads).
//
// Source files find their templates and package.json through `new URL('../..', import.meta.url)`.
// In the bundle every module lives in dist/cli/, so each module's `import.meta.url` is rewritten to
// the URL its tsc output would have (dist/<same path>.js): the relative paths keep working.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const OUT = join(ROOT, 'dist/cli');
const BUNDLE = join(OUT, 'bundle.cjs');
const LAUNCHER = join(OUT, 'bin.cjs');
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
      const url = `new URL(${JSON.stringify(`${fromOut}/${built.split(sep).pop()}`)}, __ralphBundleUrl).href`;
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
  if (name.startsWith('bundle') || name.startsWith('tui.')) rmSync(join(OUT, name));
}
const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  legalComments: 'none',
  // Less to parse at every start; names kept for error classes and stack traces.
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  metafile: true,
};
// ink is an ES module with top-level await, which require() cannot load: the terminal monitor and
// what it imports are an ES-module bundle of their own, dist/cli/tui.mjs, imported by `ralph
// monitor` alone. (Its copies of our modules are separate instances: RalphError is recognised
// across copies, see util/errors.ts.)
await build({
  ...shared,
  entryPoints: [join(SRC, 'monitor/tui/run.ts')],
  outfile: join(OUT, 'tui.mjs'),
  format: 'esm',
  external,
  banner: { js: 'const __ralphBundleUrl = import.meta.url;' },
  plugins: [keepImportMetaUrl, zodEnglishOnly],
});
const tuiImport = {
  name: 'tui-import',
  setup(esbuild) {
    esbuild.onResolve({ filter: /\/monitor\/tui\/run\.js$/ }, () => ({
      path: './tui.mjs',
      external: true,
    }));
  },
};
const { metafile } = await build({
  ...shared,
  entryPoints: [join(SRC, 'cli/entry.ts')],
  outfile: BUNDLE,
  format: 'cjs',
  external,
  // What each module's import.meta.url is rewritten against (keepImportMetaUrl).
  banner: { js: "const __ralphBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [keepImportMetaUrl, zodEnglishOnly, tuiImport],
});
routeDynamicImports(metafile);
copyFileSync(join(SRC, 'cli/bin.cjs'), LAUNCHER);
chmodSync(LAUNCHER, 0o755);
writeCodeCache();

/**
 * V8 loses the dynamic-import callback of code it takes from a code cache ("A dynamic import
 * callback was not specified"), so the bundle must not call import() itself: each import() of a
 * package left outside it (web-tree-sitter, the TUI bundle) becomes a call of `__ralphImport`,
 * which the launcher passes in and which imports from dist/cli/. esbuild's metafile lists every
 * such import; each must be found and replaced exactly once, so a new one cannot slip through.
 */
function routeDynamicImports(meta) {
  const dynamic = Object.values(meta.outputs[relative(ROOT, BUNDLE)].imports)
    .filter((entry) => entry.kind === 'dynamic-import' && entry.external)
    .map((entry) => entry.path);
  let code = readFileSync(BUNDLE, 'utf8');
  for (const specifier of new Set(dynamic)) {
    const call = `import(${JSON.stringify(specifier)})`;
    const count = code.split(call).length - 1;
    const expected = dynamic.filter((path) => path === specifier).length;
    if (count !== expected) {
      throw new Error(`bundle-cli: found ${count} of ${expected} \`${call}\` in the bundle`);
    }
    code = code.replaceAll(call, `__ralphImport(${JSON.stringify(specifier)})`);
  }
  writeFileSync(BUNDLE, code);
}

/**
 * The training run: `ralph status` in a fresh project, with the launcher told to write V8's code
 * cache after it. Status reads config, the task list and the state files, so the cache covers
 * what every command loads. Without git (or if the run fails) there is no cache, and the
 * launcher compiles from source: slower, same behaviour.
 */
function writeCodeCache() {
  const project = mkdtempSync(join(tmpdir(), 'ralph-code-cache-'));
  const env = { ...process.env, HOME: project, NO_COLOR: '1' };
  const ralph = (args, extra = {}) =>
    execFileSync(process.execPath, [LAUNCHER, ...args], {
      cwd: project,
      env: { ...env, ...extra },
      stdio: 'ignore',
    });
  try {
    execFileSync('git', ['init', '-q', '-b', 'feature/code-cache', project], { stdio: 'ignore' });
    ralph(['init']);
    ralph(['status'], { RALPH_WRITE_CODE_CACHE: `${BUNDLE}.v8-cache` });
  } catch (error) {
    process.stderr.write(`bundle-cli: no V8 code cache (${error.message.split('\n')[0]})\n`);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}
