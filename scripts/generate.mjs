// Regenerates every generated file of the repository from its source (scripts/generate/index.ts).
// Usage: npm run generate             write what is out of date
//        npm run generate -- --check  list what is out of date and exit 1, writing nothing
// The generators are TypeScript that reads src/; esbuild (already the bundler) compiles them into
// one temporary module, so that they run from a clean clone without a build of the package.
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const unknown = process.argv.slice(2).filter((a) => a !== '--check');
if (unknown.length > 0) {
  console.error(`generate: unknown argument ${unknown[0]}; usage: npm run generate [-- --check]`);
  process.exit(2);
}

// Inside node_modules, so that the compiled module resolves the dependencies the generators require.
await mkdir(path.join(root, 'node_modules/.cache'), { recursive: true });
const scratch = await mkdtemp(path.join(root, 'node_modules/.cache/sessionctl-generate-'));
try {
  const outfile = path.join(scratch, 'generate.mjs');
  await build({
    entryPoints: [path.join(root, 'scripts/generate/index.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  const { staleFiles } = await import(pathToFileURL(outfile).href);
  const read = (rel) => readFileSync(path.join(root, rel), 'utf8');
  const readGenerated = (rel) => {
    try {
      return readFileSync(path.join(root, rel), 'utf8');
    } catch {
      return undefined;
    }
  };
  const stale = staleFiles(read, readGenerated);
  for (const { path: rel, text } of stale) {
    if (check) {
      console.error(`${rel} is out of date with its source; run \`npm run generate\` and commit the result`);
    } else {
      await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
      await writeFile(path.join(root, rel), text);
      console.error(`wrote ${rel}`);
    }
  }
  if (check && stale.length === 0) console.error('generate: every generated file is up to date');
  process.exitCode = check && stale.length > 0 ? 1 : 0;
} finally {
  await rm(scratch, { recursive: true, force: true });
}
