// Runs every benchmark: each folder under bench/ with a run.js, one after the other (they measure
// time, so never in parallel). `npm run bench -- validate` runs only the folders named.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const suites = readdirSync(here, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(here, e.name, 'run.js')))
  .map((e) => e.name)
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

if (suites.length === 0) {
  console.error(`no benchmark found${only.length > 0 ? ` for: ${only.join(', ')}` : ''}`);
  process.exitCode = 2;
}
let failed = 0;
for (const name of suites) {
  console.log(`\n=== bench/${name}`);
  const r = spawnSync(process.execPath, [join(here, name, 'run.js')], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`bench/${name} failed (exit ${r.status ?? r.signal})`);
  }
}
if (failed > 0) process.exitCode = 1;
