// Hostile inputs inside the documented limits (1 MiB per file, 250,000 YAML tokens, 64 levels):
// each is validated in-process through the public parseManifest (load, schema, rules, positions)
// and timed. Target: every one under 2 s. `npm run bench -- hostile` (after `npm run build`).
import { performance } from 'node:perf_hooks';
import { parseAllDocuments } from 'yaml';
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

// CPU time (user + system) as well as wall time: on a shared machine the wall time mostly
// measures the neighbours. "yaml alone" is the yaml package's own parse of the same text, which
// every run pays before any of sessionctl's checks.
const cpu = (f) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = f();
  const c = process.cpuUsage(c0);
  return { value, wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 };
};
let worst = 0;
console.log('  wall    cpu  yaml alone (cpu)  findings    size  case');
for (const [name, make] of cases) {
  const text = make();
  const yamlOnly = cpu(() => parseAllDocuments(text));
  const run = cpu(() => parseManifest(text, { env: { X: 'gmail' }, file: 'hostile.yaml' }));
  worst = Math.max(worst, run.cpu);
  console.log(
    `${run.wall.toFixed(2).padStart(6)} ${run.cpu.toFixed(2).padStart(6)}  ${yamlOnly.cpu.toFixed(2).padStart(16)}  ${String(run.value.diagnostics.length).padStart(8)}  ${(text.length / 1024).toFixed(0).padStart(4)} KiB  ${name}`,
  );
}
console.log(`most CPU: ${worst.toFixed(2)} s (target: under 2 s each)`);
