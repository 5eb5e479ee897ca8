// The rollout of a per-user manifest over a fleet of 100,000 recorded sessions, beside its peer in
// the same run: the emulator's bare PATCH (the client's updateSession in a loop, no state, no
// check), both at 32 in flight against one emulator process.
//
// 1. plan of a one-field change over 100,000 sessions: wall time of `sessionctl plan` (target <= 5 s).
// 2. apply: the rollout's PATCHes/s at --concurrency 32 against the bare PATCH's (target >= 0.5x),
//    and the CLI's peak RSS over the whole apply (target <= 200 MB).
//
// The fleet is seeded as ensure leaves it (a session at the emulator, its row in the state), but
// through the bare create and one INSERT per 5,000 rows: seeding through ensure would take minutes.
// Needs `npm run build` and a PostgreSQL server (PG* in the environment, as .ci/run exports them).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { emulator as startEmulator } from '../lib/emulator.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(repo, 'dist/sessionctl.js');
const { createClient } = await import(join(repo, 'dist/index.js'));

if (!process.env.PGHOST && !process.env.PGDATABASE) {
  console.log('bench/rollout: skipped, no PostgreSQL (set PGHOST, PGUSER, PGPASSWORD, PGDATABASE)');
  process.exit(0);
}
const FLEET = Number(process.env.BENCH_FLEET ?? 100_000);
const BARE = Math.min(FLEET, 20_000);
const KEY = 'bench-rollout-key';
const manifest = (tools) => `name: agent\nuser_id: <end-user>\ntoolkits: [gmail, github]\ntools:\n  github: { disable: [${tools.join(', ')}] }\n`;
const V1 = ['GITHUB_DELETE_A_REPOSITORY'];
const V2 = ['GITHUB_DELETE_A_REPOSITORY', 'GITHUB_ADD_A_REPOSITORY_COLLABORATOR'];


/** `sessionctl ARGS` under /usr/bin/time: wall ms and peak RSS (bytes). */
function timed(args, env, cwd) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    // BENCH_PROFILE=DIR: a CPU profile of each command, to see where a run's time goes.
    const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const c = spawn('/usr/bin/time', ['-f', 'maxrss=%M', process.execPath, ...profile, bin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => {
      const ms = performance.now() - start;
      const rss = Number(/maxrss=(\d+)/.exec(err)?.[1] ?? NaN) * 1024;
      if (code !== 0) reject(new Error(`sessionctl ${args[0]} exited ${code}: ${err.slice(-2000)}\n${out.slice(-2000)}`));
      else resolve({ ms, rss, out, err });
    });
  });
}

async function load(total, inFlight, call) {
  let next = 0;
  const start = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < total) await call(next++);
  }));
  return performance.now() - start;
}

const f = (n, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

const schema = `bench_rollout_${process.pid}_${Date.now()}`;
const dir = mkdtempSync(join(tmpdir(), 'bench-rollout-'));
const user = encodeURIComponent(process.env.PGUSER ?? 'postgres');
const url = `postgres://${user}@${process.env.PGHOST ?? '127.0.0.1'}:${process.env.PGPORT ?? 5432}/${process.env.PGDATABASE}?schema=${schema}`;
const emu = await startEmulator(bin);
const env = { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emu.url, SESSIONCTL_STATE: url, NO_COLOR: '1', CI: 'true', ...(process.env.BENCH_CLI_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_CLI_NODE_OPTIONS } : {}) };
const db = new pg.Client();
await db.connect();
try {
  writeFileSync(join(dir, 'agent.yaml'), manifest(V1));
  await timed(['apply', 'agent.yaml'], env, dir);
  const [pub] = (await db.query(`SELECT version, body_hash FROM "${schema}".published WHERE name = 'agent'`)).rows;

  // The fleet: sessions created with the published body, rows as ensure records them.
  const client = createClient({ baseUrl: emu.url, apiKey: KEY, connections: 64 });
  const body = { toolkits: { enable: ['gmail', 'github'] }, tools: { github: { disable: V1 } } };
  const seedStart = performance.now();
  let batch = [];
  const flush = async () => {
    const rows = batch;
    batch = [];
    await db.query(
      `INSERT INTO "${schema}".fleet (workspace, name, user_id, session_id, mcp_url, tool_router_tools, config_version, version, body_hash, created_at)
       SELECT 'default', 'agent', u, s, m, t::jsonb, 1, $5, $6, now() FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS x(u, s, m, t)`,
      [rows.map((r) => r.u), rows.map((r) => r.s), rows.map((r) => r.m), rows.map((r) => r.t), pub.version, pub.body_hash],
    );
  };
  await load(FLEET, 64, async (i) => {
    const u = `user${String(i).padStart(6, '0')}`;
    const s = await client.createSession({ ...body, user_id: u });
    batch.push({ u, s: s.session_id, m: s.mcp.url, t: JSON.stringify(s.tool_router_tools) });
    if (batch.length >= 5_000) await flush();
  });
  if (batch.length > 0) await flush();
  await db.query(`ANALYZE "${schema}".fleet`);
  console.error(`seeded ${f(FLEET)} sessions in ${f((performance.now() - seedStart) / 1000, 1)} s`);

  // The peer: bare PATCHes of sessions outside the fleet, at 32 in flight.
  const others = [];
  await load(BARE, 64, async () => others.push((await client.createSession({ ...body, user_id: `other${others.length}` })).session_id));
  const patch = { tools: { github: { disable: V2 } } };
  const bareMs = await load(BARE, 32, async (i) => client.updateSession(others[i], patch));
  const bare = BARE / (bareMs / 1000);
  await client.close();

  writeFileSync(join(dir, 'agent.yaml'), manifest(V2));
  const plan = await timed(['plan', 'agent.yaml'], env, dir);
  const apply = await timed(['apply', 'agent.yaml', '--concurrency', '32'], env, dir);
  const rolled = Number((await db.query(`SELECT count(*) AS n FROM "${schema}".fleet WHERE version = 2`)).rows[0].n);
  if (rolled !== FLEET) throw new Error(`only ${rolled} of ${FLEET} rolled out:\n${apply.out.slice(-3000)}`);
  // The rollout's own time: from its first progress line's start to the end, as the CLI reports
  // it (the rate on its last line), and the whole apply's wall time including start-up and publish.
  const rates = [...apply.err.matchAll(/ ([\d,]+)\/s,/g)].map((m) => Number(m[1].replace(/,/g, '')));
  const rolloutRate = rates.at(-1);
  const applyRate = FLEET / (apply.ms / 1000);
  const rows = [
    ['plan of a one-field change over the fleet (wall)', `${f(plan.ms / 1000, 2)} s`, '<= 5 s'],
    ['bare PATCH, 32 in flight (peer)', `${f(bare)} PATCH/s`, ''],
    ['rollout at --concurrency 32 (its own rate, last progress line)', `${f(rolloutRate)} PATCH/s (${f(rolloutRate / bare, 2)}x)`, '>= 0.5x'],
    ['whole apply: start-up, plan, publish, rollout (wall)', `${f(apply.ms / 1000, 1)} s, ${f(applyRate)} sessions/s (${f(applyRate / bare, 2)}x)`, ''],
    ['CLI peak RSS over the apply', `${f(apply.rss / 2 ** 20)} MiB`, '<= 200 MB'],
    ['CLI peak RSS over the plan', `${f(plan.rss / 2 ** 20)} MiB`, ''],
  ];
  console.log(`bench/rollout: ${f(FLEET)} sessions; Node ${process.version}, ${cpus().length} CPUs, ${f(totalmem() / 2 ** 30, 1)} GiB, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('| measure | result | target |\n|---|---|---|');
  for (const [m, r, t] of rows) console.log(`| ${m} | ${r} | ${t} |`);
} finally {
  emu.stop();
  await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
  await db.end();
}
