// Bundles the CLI for the package's bin (dist/sessionctl.js) with esbuild. One file loads ~100 ms
// faster than the module tree (notes/runtime-facts §4). No code splitting: it moves modules into
// chunks/, which breaks `new URL('../package.json', import.meta.url)`, and it changed CommonJS
// interop of dynamically imported chunks. The tree that `tsc` writes to dist/ stays: it is the
// library entry (`dist/index.js`).
//
// Outputs, all in dist/ (the same folder depth as dist/version.js, which the bundles rely on):
//   sessionctl.js           the bin: a few lines that load one of the two bundles below
//   sessionctl-main.js      the whole CLI
//   sessionctl-validate.cjs the same CLI with only the `validate` command (src/cli/main-validate.ts):
//                           CI runs it on every pull request, and for a one-file lint the bin's
//                           load is most of the time (the whole CLI is mostly the HTTP client and
//                           the emulator). CommonJS, so that run-cached.cjs can compile it with
//   sessionctl-validate.cache  V8's code cache, written here by one warm-up run (code-cache.mjs)
//   run-cached.cjs          runs a CommonJS bundle through vm.Script with its code cache
//   worker.js               the bulk-validation worker (`new URL('./worker.js', import.meta.url)`)
import { readFile, writeFile, chmod, cp } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { runCachedSource, writeCodeCache } from './code-cache.mjs';

// An ESM bundle of CommonJS dependencies needs a real `require` (esbuild's shim throws on it).
const banner = { js: "import { createRequire as __sessionctlCreateRequire } from 'node:module'; const require = __sessionctlCreateRequire(import.meta.url);" };
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', banner, logLevel: 'warning' };

/**
 * The catalogue's data (half a megabyte of JSON) stays out of the bundles: it is imported on first
 * use from dist/catalog/data/ (copied above), so that a `validate` of manifests that name no
 * toolkit, and every other command, do not parse it at start-up.
 */
const externalCatalogData = {
  name: 'external-catalog-data',
  setup(b) {
    b.onResolve({ filter: /^\.\/data\/[\w-]+\.json$/ }, (args) =>
      /[\\/]src[\\/]catalog$/.test(path.dirname(args.importer)) ? { path: `./catalog/data/${path.basename(args.path)}`, external: true } : undefined,
    );
  },
};

// tsc does not emit the JSON data that modules import (their types come from `*.d.json.ts`, so that
// tsc never infers a literal type of a 450 KB list); the library tree in dist/ needs it beside them.
await cp('src/catalog/data', 'dist/catalog/data', { recursive: true, filter: (src) => !src.endsWith('.ts') });

/**
 * For the CommonJS validate bundle: CommonJS has no top-level await, so main-validate.ts's last
 * line does not await `runMain` (which sets the exit code itself). Fails the build loudly if the
 * line changes.
 */
const noTopLevelAwait = {
  name: 'no-top-level-await',
  setup(b) {
    b.onLoad({ filter: /src[\\/]cli[\\/]main-validate\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const last = 'await runMain([registerValidate]);';
      if (!source.includes(last)) throw new Error(`scripts/bundle.mjs: src/cli/main-validate.ts no longer ends with \`${last}\`; update the no-top-level-await plugin`);
      return { contents: source.replace(last, 'void runMain([registerValidate]);'), loader: 'ts' };
    });
  },
};

await build({ ...common, entryPoints: { 'sessionctl-main': 'src/cli/main.ts', worker: 'src/validate/worker.ts' }, outdir: 'dist', plugins: [externalCatalogData] });
await build({
  ...common,
  format: 'cjs',
  banner: { js: "const __sessionctlImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__sessionctlImportMetaUrl' },
  // vm.Script has no loader for import(): esbuild turns the remaining ones (node:worker_threads) into require.
  supported: { 'dynamic-import': false },
  entryPoints: { 'sessionctl-validate': 'src/cli/main-validate.ts' },
  outExtension: { '.js': '.cjs' },
  outdir: 'dist',
  plugins: [noTopLevelAwait, externalCatalogData],
});
await writeFile('dist/run-cached.cjs', runCachedSource);
writeCodeCache('dist/run-cached.cjs', 'dist/sessionctl-validate.cjs', 'dist/sessionctl-validate.cache');

// The bin is a POSIX shell script and an ES module at once. Node reads `--env-file` (and applies a
// NODE_OPTIONS from that file) anywhere on its command line, script arguments included, before any
// JavaScript runs (nodejs/node#54232; measured on Node 20.19, 20.20, 22, 24 and 26); it stops
// looking at `--`. A `#!/usr/bin/env node` bin cannot put `--` before the user's arguments, and
// `#!/usr/bin/env -S node --` needs an env with -S, which busybox (Alpine) lacks. So sh reads the
// first two lines and runs `node -- <this file> <arguments>`; node skips the shebang, sees the
// second line as a string and a comment, and runs the rest. On Windows npm's shim runs the
// shebang's program, `sh`: it works where sh is on PATH (Git Bash, MSYS2, Cygwin); elsewhere run
// `node -- <package>/dist/sessionctl.js` (see docs/install.md).
const bin = `#!/usr/bin/env sh
':' //; exec node -- "$0" "$@"
// The sessionctl bin, written by scripts/bundle.mjs. The line above is for sh: it runs node with
// \`--\` before this file, so that node never reads --env-file or other options from the
// arguments, which are sessionctl's. \`validate\` loads a bundle with only that command, because
// for a one-file lint in CI the CLI's own load is most of the time, and loads it with V8's code
// cache (~20 ms less start-up); every other command (and --help, --version) loads the whole CLI.
if (process.argv[2] === 'validate') {
  const { createRequire } = await import('node:module');
  createRequire(import.meta.url)('./run-cached.cjs')(new URL('./sessionctl-validate.cjs', import.meta.url), new URL('./sessionctl-validate.cache', import.meta.url));
} else {
  await import('./sessionctl-main.js');
}
`;
await writeFile('dist/sessionctl.js', bin);
await chmod('dist/sessionctl.js', 0o755);
