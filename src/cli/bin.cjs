#!/usr/bin/env node
// The `ralph` launcher. Why not an ES module entry: on Node 20 every ES module start pays for the
// module loader, and nothing can keep V8's compiled code between runs (module.enableCompileCache
// arrives in Node 22). So the build bundles the CLI into one CommonJS file, dist/cli/bundle.cjs,
// and writes V8's code cache for it after a training run (scripts/bundle-cli.mjs); this file
// compiles the bundle with that cache, which roughly halves what every command costs to start
// (bench/cost-ratios.bench.mjs). A cache from another Node or V8 version is rejected by V8 and the
// bundle is compiled from source, so a stale cache costs time, never correctness. The cache is
// written only by the build (RALPH_WRITE_CODE_CACHE naming its exact path), never by a user's run.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const vm = require('node:vm');

const bundle = join(__dirname, 'bundle.cjs');
const cacheFile = `${bundle}.v8-cache`;
const writeCache = process.env.RALPH_WRITE_CODE_CACHE === cacheFile;

let cachedData;
if (!writeCache) {
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (a build without git for the training run): compile from source.
  }
}
// Node's CommonJS module wrapper plus one parameter. Code V8 takes from a cache cannot import(),
// so the bundle's import()s of what stays outside it (web-tree-sitter, the TUI's dist/cli/tui.mjs)
// are calls of __ralphImport (scripts/bundle-cli.mjs): the import happens here, in a module Node
// compiled itself, resolved from dist/cli/.
const head = '(function (exports, require, module, __filename, __dirname, __ralphImport) { ';
const script = new vm.Script(`${head}${readFileSync(bundle, 'utf8')}\n});`, {
  filename: bundle,
  cachedData,
});
const bundleModule = { exports: {} };
const importFromHere = (specifier) => import(specifier);
script
  .runInThisContext()
  .call(
    bundleModule.exports,
    bundleModule.exports,
    createRequire(bundle),
    bundleModule,
    bundle,
    __dirname,
    importFromHere,
  );

bundleModule.exports.runCli(process.argv.slice(2)).then(() => {
  if (!writeCache) return;
  // After the run: the cache then holds the functions a command compiled, not only the top level.
  const temp = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(temp, script.createCachedData(), { flag: 'wx' });
  renameSync(temp, cacheFile);
});
