// Bundles the CLI for the package's bin (dist/sessionctl.js) with esbuild. One file loads ~100 ms
// faster than the module tree (notes/runtime-facts §4). No code splitting: it moves modules into
// chunks/, which breaks `new URL('../package.json', import.meta.url)`, and it changed CommonJS
// interop of dynamically imported chunks. The tree that `tsc` writes to dist/ stays: it is the
// library entry (`dist/index.js`).
//
// Outputs, all in dist/ (the same folder depth as dist/version.js, which the bundles rely on):
//   sessionctl.js           the bin: a few lines that load one of the two bundles below
//   sessionctl-main.js      the whole CLI
//   sessionctl-validate.js  the same CLI with only the `validate` command: CI runs it on every
//                           pull request, and for a one-file lint the bin's load is most of the
//                           time (the whole CLI is 2.8 MB, mostly the HTTP client and emulator)
//   worker.js               the bulk-validation worker (`new URL('./worker.js', import.meta.url)`)
import { readFile, writeFile, chmod, cp } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

// An ESM bundle of CommonJS dependencies needs a real `require` (esbuild's shim throws on it).
const banner = { js: "import { createRequire as __sessionctlCreateRequire } from 'node:module'; const require = __sessionctlCreateRequire(import.meta.url);" };
const common = { bundle: true, platform: 'node', format: 'esm', target: 'node20', banner, logLevel: 'warning' };

/**
 * For the validate bundle: `src/cli/program.ts` registers only `validate`. Everything else in the
 * program (its name, version, help and error handling, `runCli` and its exit codes) is the same
 * code. Fails the build loudly if program.ts no longer has the shape this relies on.
 */
const onlyValidate = {
  name: 'only-validate',
  setup(b) {
    b.onLoad({ filter: /src[\\/]cli[\\/]program\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const imports = /^import \{ register\w+ \} from '\.\/commands\/[\w-]+\.js';\n/gm;
      const list = /const commands: RegisterCommand\[\] = \[[^\]]*\];/;
      if (!list.test(source) || !/registerValidate/.test(source)) {
        throw new Error('scripts/bundle.mjs: src/cli/program.ts no longer declares `const commands: RegisterCommand[] = [...]`; update the only-validate plugin');
      }
      const contents = source
        .replace(imports, (line) => (line.includes('{ registerValidate }') ? line : ''))
        .replace(list, 'const commands: RegisterCommand[] = [registerValidate];');
      return { contents, loader: 'ts' };
    });
  },
};

/**
 * The catalogue's data (half a megabyte of JSON) stays out of the bundles: it is imported on first
 * use from dist/catalog/data/ (copied below), so that a `validate` of manifests that name no
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

await build({ ...common, entryPoints: { 'sessionctl-main': 'src/cli/main.ts', worker: 'src/validate/worker.ts' }, outdir: 'dist', plugins: [externalCatalogData] });
await build({ ...common, entryPoints: { 'sessionctl-validate': 'src/cli/main.ts' }, outdir: 'dist', plugins: [onlyValidate, externalCatalogData] });

const bin = `#!/usr/bin/env node
// The sessionctl bin, written by scripts/bundle.mjs. \`validate\` loads a bundle with only that
// command, because for a one-file lint in CI the CLI's own load is most of the time; every other
// command (and --help, --version) loads the whole CLI.
await import(process.argv[2] === 'validate' ? './sessionctl-validate.js' : './sessionctl-main.js');
`;
await writeFile('dist/sessionctl.js', bin);
await chmod('dist/sessionctl.js', 0o755);
