// V8's code cache for the validate bundle (used by scripts/bundle.mjs). Node 20 has no compile
// cache for ES modules (module.enableCompileCache() came in Node 22), but vm.Script takes V8's
// cached data: a CommonJS bundle compiled with the cache written after a warm-up run skips both
// parsing and the lazy compilation of every function that run used. Measured on the 2-core VM
// (bench/RESULTS.md): ~20 ms less CPU for `validate one.yaml` (~100 ms in all).
//
// The cache is written at build time, next to the bundle, never at run time: no file is written
// by a lint run. V8 rejects a cache made by another V8 version or with other flags (the bundle is
// then compiled as usual, a few hundred microseconds later), so a package built with another Node
// still works.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The source of dist/run-cached.cjs: the one place that wraps, compiles and runs the bundle. */
export const runCachedSource = `'use strict';
// Written by scripts/bundle.mjs (see scripts/code-cache.mjs): runs a CommonJS bundle compiled
// through vm.Script with V8's code cache. With writeCache, it writes the cache when the process
// exits instead (the build's warm-up run). The wrapper must stay byte-identical between the two:
// V8 checks the source before it accepts a cache.
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const { fileURLToPath } = require('node:url');
const { Script } = require('node:vm');

module.exports = function runCached(bundleUrl, cacheUrl, writeCache = false) {
  const file = fileURLToPath(bundleUrl);
  // A shebang line is a comment to node's loader, not to vm.Script (same length: the same lines).
  const source = readFileSync(file, 'utf8').replace(/^#!/, '//');
  let cachedData;
  if (!writeCache) {
    try {
      cachedData = readFileSync(fileURLToPath(cacheUrl));
    } catch {
      // No cache: compile as usual.
    }
  }
  const script = new Script('(function (exports, require, module, __filename, __dirname) {' + source + '\\n})', { filename: file, cachedData });
  if (writeCache) process.once('exit', () => writeFileSync(fileURLToPath(cacheUrl), script.createCachedData()));
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
};
`;

/**
 * Runs `validate` once through `runner` with writeCache on, so that the cache holds the compiled
 * code of both paths: the examples (with \${VAR}, read by the loader), the same without \${VAR}
 * (the fast path), and one with a finding (the report with code frames).
 */
export function writeCodeCache(runner, bundle, cache) {
  const dir = mkdtempSync(join(tmpdir(), 'sessionctl-code-cache-'));
  try {
    for (const name of readdirSync('examples').filter((n) => n.endsWith('.yaml'))) {
      const text = readFileSync(join('examples', name), 'utf8');
      writeFileSync(join(dir, name), text);
      writeFileSync(join(dir, `plain-${name}`), text.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1'));
    }
    writeFileSync(join(dir, 'finding.yaml'), 'name: finding\nuser_id: u-1\ntoolkits: [gmail]\ncolour: blue\n');
    rmSync(cache, { force: true });
    const code = `require(${JSON.stringify(resolve(runner))})(${JSON.stringify(pathToFileURL(resolve(bundle)).href)}, ${JSON.stringify(pathToFileURL(resolve(cache)).href)}, true)`;
    // `warm-up` stands where the bin's path would be: the CLI reads its arguments from argv[2].
    const run = spawnSync(process.execPath, ['-e', code, 'warm-up', 'validate', dir, '--format', 'human'], { stdio: 'ignore' });
    if (run.status !== 1 || !existsSync(cache)) throw new Error(`scripts/code-cache.mjs: the warm-up run failed (exit ${run.status ?? run.signal}, expected 1 for the finding)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
