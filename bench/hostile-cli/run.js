// Hostile inputs end to end through the built CLI (`validate`, human and JSON reports), where the
// in-process bench (bench/hostile) stops before the report: a code frame per finding and a
// did-you-mean per unknown slug are paid here. Issue 29's case: a 500 KB flow list of 70,000
// unknown toolkit slugs, target at most 8 s each (CPU time: on a shared machine the wall time
// mostly measures the neighbours; both are printed). `npm run bench -- hostile-cli` (builds first).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../dist/sessionctl.js', import.meta.url));
const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const cases = [
  ['70,000 unknown toolkits in a flow list (one line)', () => `name: big\nuser_id: u\ntoolkits: [${range(70_000, (i) => `zq${i.toString(36)}`).join(',')}]\n`],
  ['70,000 misspellings of known toolkits', () => `name: big\nuser_id: u\ntoolkits: [${range(70_000, (i) => `gmial${i.toString(36)}`).join(',')}]\n`],
  ['20,000 unknown tools of github, one line', () => `name: big\nuser_id: u\ntools: {github: [${range(20_000, (i) => `GITHUB_X${i}`).join(',')}]}\n`],
];

const dir = mkdtempSync(join(tmpdir(), 'sessionctl-bench-'));
let worst = 0;
try {
  console.log('  wall    cpu  format  exit  output    size  case');
  for (const [name, make] of cases) {
    const file = join(dir, 'm.yaml');
    const text = make();
    writeFileSync(file, text);
    for (const format of ['human', 'json']) {
      const t0 = process.hrtime.bigint();
      const r = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, bin, 'validate', '--format', format, file], { encoding: 'utf8', maxBuffer: 1 << 30 });
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const [u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
      const cpu = u + s;
      worst = Math.max(worst, cpu);
      console.log(`${wall.toFixed(2).padStart(6)} ${cpu.toFixed(2).padStart(6)}  ${format.padEnd(6)}  ${String(r.status).padStart(4)}  ${(r.stdout.length / 1e6).toFixed(1).padStart(4)} MB  ${(text.length / 1024).toFixed(0).padStart(4)} KiB  ${name}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`most CPU: ${worst.toFixed(2)} s (target: at most 8 s each)`);
if (worst > 8) process.exitCode = 1;
