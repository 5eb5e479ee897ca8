// Writes the generated reference pages (docs/manifest.md, docs/rules.md) from the built package.
// Usage: npm run docs            (write)
//        npm run docs -- --check (exit 1 when a committed page is out of date)
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedDocs } from '../dist/docs/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schema = JSON.parse(await readFile(path.join(root, 'schemas/session-manifest.schema.json'), 'utf8'));
const check = process.argv.includes('--check');
let stale = 0;
for (const [file, text] of Object.entries(generatedDocs(schema))) {
  const target = path.join(root, file);
  const current = await readFile(target, 'utf8').catch(() => undefined);
  if (current === text) continue;
  if (check) {
    console.error(`${file} is out of date; run \`npm run docs\``);
    stale++;
  } else {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
    console.error(`wrote ${file}`);
  }
}
process.exitCode = stale > 0 ? 1 : 0;
