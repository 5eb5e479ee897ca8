// Runs the test suite beside a CPU hog (docs/testing.md): one busy child process per core keeps
// every core saturated while `vitest run` goes, then prints the ten slowest tests and every test
// that used more than half of its timeout.
//
// Usage: npm run build && node scripts/test-under-load.mjs [--runs N] [--hogs N]
// Exit 0 when every run passed and no test went over half its timeout, 1 otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const runs = arg('--runs', 3);
const hogs = arg('--hogs', availableParallelism());
const DEFAULT_TIMEOUT = 20_000;

/** Tests that set a timeout of their own (the rest have vitest.config.ts's 20 s). */
const OWN_TIMEOUTS = new Map([
  ['files put / files get of 20 MiB round-trips byte for byte with flat memory', 120_000],
  ['the built bin gives the same report with worker threads as without', 40_000],
  ['per-file validation gives exactly the in-memory results on generated bench manifests', 40_000],
  ['per-file validation gives the same results for tricky files: duplicates, secrets, YAML 1.1, env, multi-document, large, links', 40_000],
  ['the GitHub Action, run locally apply: sessions created on the service, their ids and MCP URLs as outputs, the key never in the log', 40_000],
  ['the GitHub Action, run locally diff: drift after an edit is annotated on the declared line, and the step fails', 40_000],
]);
const timeoutOf = (title) => OWN_TIMEOUTS.get(title) ?? DEFAULT_TIMEOUT;

const children = [];
const stopHogs = () => {
  for (const c of children) c.kill('SIGKILL');
};
process.on('exit', stopHogs);
for (let i = 0; i < hogs; i++) children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));

let failed = 0;
const work = mkdtempSync(path.join(tmpdir(), 'sessionctl-under-load-'));
try {
  for (let run = 1; run <= runs; run++) {
    const out = path.join(work, `run-${run}.json`);
    const started = Date.now();
    const r = spawnSync('npx', ['vitest', 'run', '--reporter=dot', '--reporter=json', `--outputFile.json=${out}`], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    const report = JSON.parse(readFileSync(out, 'utf8'));
    const tests = report.testResults.flatMap((f) => f.assertionResults.map((t) => ({ file: f.name, title: t.fullName, status: t.status, ms: t.duration ?? 0 })));
    const slow = tests.filter((t) => t.ms > timeoutOf(t.title) / 2);
    console.log(`run ${run}: exit ${r.status}, ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${Math.round((Date.now() - started) / 1000)} s with ${hogs} hog(s)`);
    for (const t of [...tests].sort((a, b) => b.ms - a.ms).slice(0, 10)) console.log(`  ${(t.ms / 1000).toFixed(1)} s  ${path.relative(root, t.file)} > ${t.title}`);
    for (const t of slow) console.log(`  OVER HALF ITS TIMEOUT: ${path.relative(root, t.file)} > ${t.title} (${t.ms} ms)`);
    if (r.status !== 0 || slow.length > 0) failed++;
  }
} finally {
  stopHogs();
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed > 0 ? 1 : 0;
