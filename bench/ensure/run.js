// ensure at run time, beside its peer in the same run: the emulator's bare create.
//
// 1. Recorded users: 16 concurrent callers, each call one indexed read (no request to the
//    service): p50/p99 latency and calls/s. Targets: p99 <= 10 ms, >= 5,000 calls/s.
// 2. New users: ensure's creates/s (read, claim, mark sent, create, record) beside the bare create
//    of the same body through the client, both at 16 in flight against one emulator process,
//    interleaved rounds. Target: >= 0.7x the bare create.
// 3. The emulator at fleet scale: 100,000 sessions; its memory per session (RSS, Linux) and the
//    create and GET latency at 100,000 against an empty emulator.
//
// Needs `npm run build` and a PostgreSQL server (PG* in the environment, as .ci/run exports them).
import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir, cpus, totalmem, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { emulator as startEmulator } from '../lib/emulator.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(repo, 'dist/sessionctl.js');
const { openSessions, createClient } = await import(join(repo, 'dist/index.js'));

if (!process.env.PGHOST && !process.env.PGDATABASE) {
  console.log('bench/ensure: skipped, no PostgreSQL (set PGHOST, PGUSER, PGPASSWORD, PGDATABASE)');
  process.exit(0);
}
const KEY = 'bench-ensure-key';
const BODY = { toolkits: { enable: ['gmail', 'github'] }, tools: { github: { disable: ['GITHUB_DELETE_A_REPOSITORY'] } } };
const MANIFEST = 'name: agent\nuser_id: <end-user>\ntoolkits: [gmail, github]\ntools:\n  github: { disable: [GITHUB_DELETE_A_REPOSITORY] }\n';


function run(args, env, cwd) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`sessionctl ${args[0]} exited ${code}: ${err}`))));
  });
}

async function freshState() {
  const schema = `bench_ensure_${process.pid}_${Date.now()}`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-ensure-'));
  writeFileSync(join(dir, 'agent.yaml'), MANIFEST);
  const user = encodeURIComponent(process.env.PGUSER ?? 'postgres');
  const url = `postgres://${user}@${process.env.PGHOST ?? '127.0.0.1'}:${process.env.PGPORT ?? 5432}/${process.env.PGDATABASE}?schema=${schema}`;
  return { schema, dir, url };
}

async function dropSchema(schema) {
  const c = new pg.Client();
  await c.connect();
  await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await c.end();
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** `total` calls of `call(i)`, `inFlight` at once: per-call latencies (ms) and the wall time. */
async function load(total, inFlight, call) {
  const latencies = new Array(total);
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await call(i);
        latencies[i] = performance.now() - t;
      }
    }),
  );
  const wall = performance.now() - start;
  latencies.sort((a, b) => a - b);
  return { wall, perSecond: (total / wall) * 1000, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

/** CPU time (user + system, ms) a process has spent, from /proc (Linux). */
const cpuMs = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
};

/** The database backends serving a schema's pool: those whose last statement named it. */
async function backendPids(schema) {
  const c = new pg.Client();
  await c.connect();
  const r = await c.query('SELECT pid FROM pg_stat_activity WHERE query LIKE $1 AND pid <> pg_backend_pid()', [`%${schema}%`]);
  await c.end();
  return r.rows.map((row) => row.pid);
}

const rssOf = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;
const f = (n, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

const results = [];
const loadBefore = loadavg().map((x) => x.toFixed(1)).join(' / ');

// 1 and 2: one emulator process, one state.
{
  const emu = await startEmulator(bin);
  const st = await freshState();
  await run(['apply', 'agent.yaml', '--base-url', emu.url, '--state', st.url], { COMPOSIO_API_KEY: KEY }, st.dir);
  const sessions = await openSessions(st.url, { apiKey: KEY, baseUrl: emu.url, env: process.env, maxConnections: 16 });
  const client = createClient({ baseUrl: emu.url, apiKey: KEY, connections: 16 });

  // New users: ensure and the bare create, interleaved rounds of 500, 16 in flight each, after a
  // round of each to warm up. Besides the rates, the CPU each spends per session, in this process,
  // the emulator and the database's backends (the pool's, found by the schema in their last query):
  // on two shared cores the rate follows the CPU, and the CPU per session holds under other load.
  await load(500, 16, (i) => sessions.ensure('agent', `warm-${i}`));
  await load(500, 16, (i) => client.createSession({ user_id: `warm-${i}`, ...BODY }));
  const backends = await backendPids(st.schema);
  const spent = { ensure: 0, bare: 0 };
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 + cpuMs(emu.child.pid) + backends.reduce((a, p) => a + cpuMs(p), 0); };
  const rounds = 4;
  const ensureRates = [];
  const bareRates = [];
  let u = 500;
  for (let r = 0; r < rounds; r++) {
    const base = u;
    let before = cpu();
    ensureRates.push((await load(500, 16, (i) => sessions.ensure('agent', `new-${base + i}`))).perSecond);
    spent.ensure += cpu() - before;
    u += 500;
    before = cpu();
    bareRates.push((await load(500, 16, (i) => client.createSession({ user_id: `bare-${r}-${i}`, ...BODY }))).perSecond);
    spent.bare += cpu() - before;
  }
  const perSession = { ensure: spent.ensure / (rounds * 500), bare: spent.bare / (rounds * 500) };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ensureNew = median(ensureRates);
  const bare = median(bareRates);

  // Recorded users: the 2,000 just created, 20,000 calls at 16 concurrent callers (after 2,000 to warm up).
  await load(2000, 16, (i) => sessions.ensure('agent', `new-${i % u}`));
  const recorded = await load(20_000, 16, (i) => sessions.ensure('agent', `new-${(i * 7919) % u}`));

  results.push(['recorded user, 16 concurrent callers: p50 / p99 latency', `${f(recorded.p50, 2)} ms / ${f(recorded.p99, 2)} ms`, 'p99 ≤ 10 ms', recorded.p99 <= 10]);
  results.push(['recorded user, 16 concurrent callers: calls/s (20,000 calls)', f(recorded.perSecond, 0), '≥ 5,000', recorded.perSecond >= 5000]);
  results.push(['new user, 16 in flight: ensure creates/s (median of 4 rounds of 500)', f(ensureNew, 0), '', undefined]);
  results.push(['bare create through the client, 16 in flight (interleaved rounds)', f(bare, 0), '', undefined]);
  results.push(['ensure ÷ bare create', `${f(ensureNew / bare, 2)}x`, '≥ 0.7x', ensureNew / bare >= 0.7]);
  results.push([`CPU per new user, ensure / bare create (this process, the emulator, ${backends.length} database backends)`, `${f(perSession.ensure, 2)} ms / ${f(perSession.bare, 2)} ms`, '', undefined]);
  await sessions.close();
  await client.close();
  emu.stop();
  await dropSchema(st.schema);
}

// 3: the emulator at 100,000 sessions.
{
  const emu = await startEmulator(bin);
  const client = createClient({ baseUrl: emu.url, apiKey: KEY, connections: 32 });
  const ids = [];
  const warm = await load(2000, 32, async (i) => ids.push((await client.createSession({ user_id: `warm-${i}`, ...BODY })).session_id));
  const rssEmpty = rssOf(emu.child.pid);
  const getEmpty = await load(2000, 32, (i) => client.getSession(ids[i % ids.length]));
  const fill = await load(98_000, 32, async (i) => ids.push((await client.createSession({ user_id: `user-${i}`, ...BODY })).session_id));
  const rssFull = rssOf(emu.child.pid);
  const atScale = await load(2000, 32, (i) => client.createSession({ user_id: `late-${i}`, ...BODY }));
  const getFull = await load(2000, 32, (i) => client.getSession(ids[(i * 7919) % ids.length]));
  results.push(['emulator: memory per session (RSS growth over 98,000 sessions)', `${f((rssFull - rssEmpty) / 98_000 / 1024, 2)} KiB`, '', undefined]);
  results.push(['emulator: RSS at 2,000 / at 100,000 sessions', `${f(rssEmpty / 2 ** 20, 0)} MiB / ${f(rssFull / 2 ** 20, 0)} MiB`, '', undefined]);
  results.push(['emulator: creates/s at 2,000 sessions / filling to 100,000 / at 100,000', `${f(warm.perSecond, 0)} / ${f(fill.perSecond, 0)} / ${f(atScale.perSecond, 0)}`, 'no slower at 100,000', atScale.perSecond >= 0.8 * warm.perSecond]);
  results.push(['emulator: GET p99 at 2,000 / at 100,000 sessions', `${f(getEmpty.p99, 1)} ms / ${f(getFull.p99, 1)} ms`, '', undefined]);
  await client.close();
  emu.stop();
}

console.log(`\nbench/ensure, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores, ${f(totalmem() / 2 ** 30, 1)} GiB; load average ${loadBefore} before, ${loadavg().map((x) => x.toFixed(1)).join(' / ')} after\n`);
console.log('| measure | result | target |\n|---|---|---|');
for (const [what, value, target, ok] of results) console.log(`| ${what} | **${value}** | ${target}${ok === undefined ? '' : ok ? ' ✅' : ' ❌'} |`);
