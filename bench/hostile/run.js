// Hostile inputs inside the documented limits (1 MiB per file, 250,000 YAML tokens, 64 levels):
// each is validated in-process through the public parseManifest (load, schema, rules, positions)
// and timed. Target: every one under 2 s. `npm run bench -- hostile` (after `npm run build`).
import { performance } from 'node:perf_hooks';
import { parseManifest } from '../../dist/index.js';

const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const cases = [
  ['flow list of 82,000 distinct toolkits', () => `user_id: u\ntoolkits: [${range(82_000, (i) => `t${i}`).join(',')}]\n`],
  ['flow list of 82,000 equal toolkits', () => `user_id: u\ntoolkits: [${range(82_000, () => 'gmail').join(',')}]\n`],
  ['82,000 tools in one enable list', () => `user_id: u\ntools:\n  gmail:\n    enable: [${range(82_000, (i) => `T${i}`).join(',')}]\n`],
  ['30,000 unknown top-level keys', () => `user_id: u\n${range(30_000, (i) => `k${i}: 1`).join('\n')}\n`],
  ['30,000 unknown keys in workbench', () => `user_id: u\nworkbench:\n${range(30_000, (i) => `  k${i}: 1`).join('\n')}\n`],
  ['30,000 toolkit keys under tools', () => `user_id: u\ntools:\n${range(30_000, (i) => `  t${i}: [X]`).join('\n')}\n`],
  ['30,000 wrong-type toolkit entries under tools', () => `user_id: u\ntools:\n${range(30_000, (i) => `  t${i}: 1`).join('\n')}\n`],
  ['20,000 custom tools missing every field', () => `user_id: u\nexperimental:\n  custom_tools: [${range(20_000, () => '{}').join(',')}]\n`],
  ['40,000 ${X} values', () => `user_id: u\ntoolkits: [${range(40_000, () => '"${X}"').join(',')}]\n`],
  ['80,000 list items of lists', () => `user_id: u\ntoolkits: [${range(80_000, () => '[]').join(',')}]\n`],
];

let worst = 0;
for (const [name, make] of cases) {
  const text = make();
  const started = performance.now();
  const r = parseManifest(text, { env: { X: 'gmail' }, file: 'hostile.yaml' });
  const ms = performance.now() - started;
  worst = Math.max(worst, ms);
  console.log(`${(ms / 1000).toFixed(2).padStart(6)} s  ${String(r.diagnostics.length).padStart(6)} findings  ${(text.length / 1024).toFixed(0).padStart(5)} KiB  ${name}`);
}
console.log(`slowest: ${(worst / 1000).toFixed(2)} s (target: under 2 s each)`);
