// Bundles the CLI into one file (dist/sessionctl.js, the package's bin) and the bulk-validation
// worker beside it (dist/worker.js, found by `new URL('./worker.js', import.meta.url)`).
// One file loads ~100 ms faster than the module tree (notes/runtime-facts §4). No code
// splitting: it changed CommonJS interop of dynamically imported chunks. The tree that `tsc`
// writes to dist/ stays: it is the library entry (`dist/index.js`).
import { build } from 'esbuild';

// An ESM bundle of CommonJS dependencies needs a real `require` (esbuild's shim throws on it).
const banner = { js: "import { createRequire as __sessionctlCreateRequire } from 'node:module'; const require = __sessionctlCreateRequire(import.meta.url);" };

await build({
  entryPoints: { sessionctl: 'src/cli/main.ts', worker: 'src/validate/worker.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  banner,
  logLevel: 'warning',
});
