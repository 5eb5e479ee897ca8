// bench/validate: sessionctl validate against ajv-cli on the same generated files and the same
// schema, at 10, 100, 1,000 and 10,000 files, side by side in one hyperfine run per size (with
// sessionctl's loader alone, `--no-fast-path`, for scale); cold start against bare node; peak RSS
// on 100,000 files. Prints a Markdown section for bench/RESULTS.md and writes the raw numbers to
// bench/validate/results.json. Times are best (min) and median of BENCH_RUNS runs, with the
// standard deviation as the noise.
//
// ajv-cli is a peer here only: it falls back to require() on files it cannot parse as YAML
// (notes/runtime-facts §5), so it is only ever run on the files this script generated.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, generateProject } from './generate.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/sessionctl.js');
const ajv = join(root, 'node_modules/.bin/ajv');
const schema = join(root, 'schemas/session-manifest.schema.json');
const work = join(tmpdir(), 'sessionctl-bench-validate');
const sizes = (process.env.BENCH_SIZES ?? '10,100,1000,10000').split(',').map(Number);
const rssFiles = Number(process.env.BENCH_RSS_FILES ?? 100000);
const runs = Number(process.env.BENCH_RUNS ?? 5);

if (!existsSync(bin)) {
  console.error('dist/sessionctl.js is missing: run `npm run build` first (npm run bench does).');
  process.exit(2);
}
const hasHyperfine = spawnSync('hyperfine', ['--version']).status === 0;

function sh(cmd, args) {
  return `${cmd} ${args.map((a) => (/^[\w./=,:-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ')}`;
}

/** Targets of issue 15: ajv-cli time / sessionctl time. */
const target = (files) => (files <= 100 ? 2.0 : files <= 1000 ? 1.5 : 1.2);
const COLD_START_TARGET = 1.8;

/** Best, median, deviation, user and system seconds of `runs` runs of each command (hyperfine when present). */
function measure(commands, { warmup = 1, n = runs } = {}) {
  if (hasHyperfine) {
    const out = join(work, 'hyperfine.json');
    execFileSync('hyperfine', ['-N', '-i', '-w', String(warmup), '-r', String(n), '--export-json', out, ...commands.map((c) => c.line)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const results = JSON.parse(readFileSync(out, 'utf8')).results;
    return results.map((r) => ({ min: r.min, median: r.median, stddev: r.stddev, user: r.user, system: r.system }));
  }
  return commands.map((c) => {
    const walls = [];
    for (let i = 0; i < warmup + n; i++) {
      const t = process.hrtime.bigint();
      spawnSync(c.cmd, c.args, { stdio: 'ignore' });
      if (i >= warmup) walls.push(Number(process.hrtime.bigint() - t) / 1e9);
    }
    walls.sort((a, b) => a - b);
    const mean = walls.reduce((a, b) => a + b, 0) / walls.length;
    const stddev = Math.sqrt(walls.reduce((a, b) => a + (b - mean) ** 2, 0) / walls.length);
    return { min: walls[0], median: walls[Math.floor(walls.length / 2)], stddev, user: NaN, system: NaN };
  });
}

function command(cmd, args) {
  return { cmd, args, line: sh(cmd, args) };
}

/** The files each tool calls invalid must be the same: the same files against the same schema. */
function sameVerdicts(dir) {
  const ours = spawnSync(process.execPath, [bin, 'validate', dir, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const report = JSON.parse(ours.stdout);
  const oursInvalid = new Set(report.diagnostics.filter((d) => d.severity === 'error').map((d) => join(dir, d.file.split('/').pop())));
  const peer = spawnSync(ajv, ['validate', '--spec=draft7', '-c', 'ajv-formats', '--allow-union-types', '-s', schema, '-d', `${dir}/*.yaml`, '--all-errors'], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const peerInvalid = new Set([...`${peer.stdout}\n${peer.stderr}`.matchAll(/^(\S+) invalid$/gm)].map((m) => m[1]));
  const agree = oursInvalid.size === peerInvalid.size && [...oursInvalid].every((f) => peerInvalid.has(f));
  return { agree, ours: oursInvalid.size, peer: peerInvalid.size, files: report.summary.files };
}

function maxRssKb(cmd, args) {
  const r = spawnSync('/usr/bin/time', ['-v', cmd, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr ?? '');
  return m === null ? NaN : Number(m[1]);
}

mkdirSync(work, { recursive: true });
const results = {
  date: new Date().toISOString(),
  machine: `${cpus()[0]?.model ?? 'unknown cpu'}, ${availableParallelism()} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GB`,
  node: process.version,
  loadBefore: loadavg()[0],
  tool: hasHyperfine ? `hyperfine -N, ${runs} runs per command` : `spawn timing, ${runs} runs per command`,
  bulk: [],
};

for (const size of sizes) {
  const dir = join(work, `m${size}`);
  if (!existsSync(join(dir, `m${String(size - 1).padStart(6, '0')}.yaml`))) {
    rmSync(dir, { recursive: true, force: true });
    generate(dir, size);
  }
  const verdicts = sameVerdicts(dir);
  const [ours, peer, loader] = measure([
    command(process.execPath, [bin, 'validate', dir, '--format', 'json']),
    command(ajv, ['validate', '--spec=draft7', '-c', 'ajv-formats', '--allow-union-types', '-s', schema, '-d', `${dir}/*.yaml`, '--all-errors']),
    command(process.execPath, [bin, 'validate', dir, '--format', 'json', '--no-fast-path']),
  ]);
  results.bulk.push({ files: size, sessionctl: ours, ajvCli: peer, loaderAlone: loader, speedup: peer.min / ours.min, speedupMedian: peer.median / ours.median, target: target(size), verdicts });
}

// Side by side at 1,000 files: the plain files without a project file, against the same files with
// a sessionctl.yaml (severities, an override, eleven policies) and suppression comments. Both as
// \`validate <dir> --format json\`, interleaved in one measurement.
{
  const plain = join(work, 'm1000');
  if (!existsSync(join(plain, 'm000999.yaml'))) {
    rmSync(plain, { recursive: true, force: true });
    generate(plain, 1000);
  }
  const projectDir = join(work, 'p1000');
  rmSync(projectDir, { recursive: true, force: true });
  generateProject(projectDir, 1000);
  const [without, withProject] = measure([
    command(process.execPath, [bin, 'validate', plain, '--format', 'json', '--no-config']),
    command(process.execPath, [bin, 'validate', projectDir, '--config', join(projectDir, 'sessionctl.yaml'), '--format', 'json']),
  ]);
  results.project = { files: 1000, without, withProject, cost: withProject.median / without.median - 1 };
}

const one = join(work, 'one.yaml');
writeFileSync(one, readFileSync(join(root, 'examples/support-agent.yaml')));
// The same manifest without its ${VAR}: the fast path takes it (the example goes to the loader).
const plain = join(work, 'one-plain.yaml');
writeFileSync(plain, readFileSync(join(root, 'examples/support-agent.yaml'), 'utf8').replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1'));
const [bare, cold, coldPlain, version] = measure(
  [
    command(process.execPath, ['-e', '']),
    command(process.execPath, [bin, 'validate', one]),
    command(process.execPath, [bin, 'validate', plain]),
    command(process.execPath, [bin, '--version']),
  ],
  { warmup: 3, n: Math.max(15, runs) },
);
results.coldStart = { bareNode: bare, validateOne: cold, validateOnePlain: coldPlain, version, ratio: cold.min / bare.min, ratioMedian: cold.median / bare.median, target: COLD_START_TARGET };

const big = join(work, `m${rssFiles}`);
if (!existsSync(join(big, `m${String(rssFiles - 1).padStart(6, '0')}.yaml`))) {
  rmSync(big, { recursive: true, force: true });
  generate(big, rssFiles);
}
const t = process.hrtime.bigint();
results.rss = { files: rssFiles, maxRssMb: maxRssKb(process.execPath, [bin, 'validate', big, '--format', 'json']) / 1024 };
results.rss.seconds = Number(process.hrtime.bigint() - t) / 1e9;
results.loadAfter = loadavg()[0];
writeFileSync(join(root, 'bench/validate/results.json'), `${JSON.stringify(results, null, 2)}\n`);

const s = (x) => (Number.isNaN(x) ? 'n/a' : `${x.toFixed(3)} s`);
const ms = (x) => `${(x * 1000).toFixed(0)} ms`;
const timing = (m) => `${s(m.min)} / ${s(m.median)} ± ${ms(m.stddev)} (${s(m.user)})`;
const lines = [
  '## validate',
  '',
  `${results.date}, ${results.machine}, Node ${results.node}; ${results.tool}; load average ${results.loadBefore.toFixed(1)} before, ${results.loadAfter.toFixed(1)} after.`,
  'Times: best / median ± standard deviation (user CPU of the median run). Ratio: ajv-cli / sessionctl, of the best runs (of the medians in brackets).',
  '',
  '| files | sessionctl | ajv-cli | ratio | target | loader alone (`--no-fast-path`) | same invalid files |',
  '|---:|---:|---:|---:|---:|---:|---|',
  ...results.bulk.map(
    (b) =>
      `| ${b.files.toLocaleString('en')} | ${timing(b.sessionctl)} | ${timing(b.ajvCli)} | **${b.speedup.toFixed(2)}** (${b.speedupMedian.toFixed(2)}) | >= ${b.target.toFixed(1)} ${b.speedup >= b.target ? 'met' : 'MISSED'} | ${timing(b.loaderAlone)} | ${b.verdicts.agree ? 'yes' : 'NO'} (${b.verdicts.ours}) |`,
  ),
  '',
  `| cold start | best / median ± deviation |`,
  '|---|---:|',
  `| \`node -e ''\` | ${ms(bare.min)} / ${ms(bare.median)} ± ${ms(bare.stddev)} |`,
  `| \`sessionctl validate one.yaml\` | ${ms(cold.min)} / ${ms(cold.median)} ± ${ms(cold.stddev)}: **${results.coldStart.ratio.toFixed(2)}x** bare node (${results.coldStart.ratioMedian.toFixed(2)}x of medians); target <= ${COLD_START_TARGET}x |`,
  `| \`sessionctl validate one-plain.yaml\` (the same without \`\${VAR}\`: fast path) | ${ms(coldPlain.min)} / ${ms(coldPlain.median)} ± ${ms(coldPlain.stddev)}: ${(coldPlain.min / bare.min).toFixed(2)}x |`,
  `| \`sessionctl --version\` | ${ms(version.min)} / ${ms(version.median)} ± ${ms(version.stddev)} |`,
  '',
  `Peak RSS validating ${rssFiles.toLocaleString('en')} files: ${results.rss.maxRssMb.toFixed(0)} MB (target <= 200 MB), ${results.rss.seconds.toFixed(1)} s.`,
  '',
  '| 1,000 files | wall (user) |',
  '|---|---:|',
  `| no project file (\`--no-config\`) | ${s(results.project.without.median)} (${s(results.project.without.user)}) |`,
  `| sessionctl.yaml with 11 policies, severities, an override; suppression comments | ${s(results.project.withProject.median)} (${s(results.project.withProject.user)}) |`,
  `| cost of the project file, suppressions and policies | ${(results.project.cost * 100).toFixed(1)} % (target <= 10 %) |`,
];
console.log(lines.join('\n'));
