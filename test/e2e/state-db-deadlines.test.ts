import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { cliBundle } from '../conformance/cli-bundle.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { runCli } from '../helpers/run-cli.js';
import { skipBecause } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';
import { testClient } from '../setup/postgres.js';
import { stalledDatabase, type StalledDatabase } from './stalled-database.js';

/**
 * Issue 29, item 4: a state database that stops answering cannot hang a run. The connection (and
 * its startup) and every statement have deadlines, set in the state URL (`connect_timeout`,
 * `query_timeout`, in seconds) or by PGCONNECT_TIMEOUT; a run stuck anyway ends within its grace
 * time after SIGTERM with 143, and a second signal ends it at once. Before, a black-holed
 * database kept apply alive for minutes through two SIGTERMs. The time bounds below are loose
 * hang detectors (a 2-vCPU shared machine), not benchmarks.
 */

const open: StalledDatabase[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

async function stalled(kind: 'black-hole' | 'stall-after-startup'): Promise<StalledDatabase> {
  const s = await stalledDatabase(kind);
  open.push(s);
  return s;
}

const url = (port: number, params = ''): string => `postgres://deploy@127.0.0.1:${port}/ops?schema=sessionctl${params}`;
const ENV = { PGPASSWORD: 'pw-never-shown-0417' };

function project(): string {
  const dir = tempDir('deadlines');
  mkdirSync(join(dir, 'm'));
  writeFileSync(join(dir, 'm', 'a.yaml'), 'name: a\nuser_id: user-a\n');
  return dir;
}

describe('deadlines on a database that stops answering', () => {
  const connectCases: Array<[string, string[], Record<string, string>]> = [
    ['state list, connect_timeout=1 in the URL', ['state', 'list'], {}],
    ['state pull', ['state', 'pull'], {}],
    ['state push', ['state', 'push', '-'], {}],
    ['plan', ['plan', 'm'], {}],
    ['apply', ['apply', 'm'], { COMPOSIO_API_KEY: 'k-deadline-1', COMPOSIO_BASE_URL: 'http://127.0.0.1:9' }],
  ];
  test.each(connectCases)('black hole (accepts, never answers): %s ends with exit 5 and says which deadline', { timeout: 30_000 }, async (_name, argv, env) => {
    const s = await stalled('black-hole');
    const started = Date.now();
    const r = await runCli([...argv, '--state', url(s.port, '&connect_timeout=1')], { cwd: project(), env: { ...ENV, ...env }, stdin: '{"version":1,"sessions":[]}' });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('the database did not complete the connection in time (a server that accepts and never answers, or a network that drops it); connect_timeout=SECONDS in the state URL (else PGCONNECT_TIMEOUT, else 10) sets this deadline');
    expect(r.stderr).not.toContain(ENV.PGPASSWORD);
    expect(s.accepted()).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test('black hole with PGCONNECT_TIMEOUT=1 and no URL parameter', { timeout: 30_000 }, async () => {
    const s = await stalled('black-hole');
    const r = await runCli(['state', 'list', '--state', url(s.port)], { cwd: project(), env: { ...ENV, PGCONNECT_TIMEOUT: '1' } });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('did not complete the connection in time');
  });

  test.each([
    ['state list', ['state', 'list']],
    ['state push', ['state', 'push', '-']],
    ['plan', ['plan', 'm']],
  ])('answers the startup, then stalls: %s ends with exit 5 once query_timeout=1 passes', { timeout: 30_000 }, async (_name, argv) => {
    const s = await stalled('stall-after-startup');
    const r = await runCli([...argv, '--state', url(s.port, '&query_timeout=1')], { cwd: project(), env: ENV, stdin: '{"version":1,"sessions":[]}' });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('the database did not answer within 1 s (a server that stopped answering, or a lock another session holds); query_timeout=SECONDS in the state URL sets this deadline');
  });

  test.each([
    ['connect_timeout=0 (for ever)', '&connect_timeout=0', `the state URL's connect_timeout "0" is not a whole number of seconds from 1 to 3600`],
    ['query_timeout=abc', '&query_timeout=abc', `the state URL's query_timeout "abc" is not a whole number of seconds from 1 to 3600`],
    ['query_timeout=3601', '&query_timeout=3601', `the state URL's query_timeout "3601" is not a whole number of seconds from 1 to 3600`],
  ])('a deadline that is no deadline is refused: %s, exit 2', async (_name, params, says) => {
    const r = await runCli(['state', 'list', '--state', url(1, params)], { cwd: project(), env: ENV });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(says);
  });
});

const schemas: string[] = [];
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('a lock another session holds on the real server', () => {
  async function held(lockSql: (schema: string) => string): Promise<{ schema: string; holder: pg.Client }> {
    const schema = uniqueSchema('deadline');
    schemas.push(schema);
    const dir = project();
    const first = await runCli(['state', 'push', '-', '--state', stateUrl(db!, schema)], { cwd: dir, env: db!.env, stdin: JSON.stringify({ version: 1, sessions: [{ name: 'a', user_id: 'u', session_id: 'trs_aaaaaaaaaaaa', mcp_url: 'https://m/x', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z' }] }) });
    expect(first.exitCode).toBe(0);
    const holder = testClient(db!);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(lockSql(schema));
    return { schema, holder };
  }

  test.each([
    ['the locks table, locked whole', (s: string) => `LOCK TABLE "${s}".locks IN ACCESS EXCLUSIVE MODE`, ['state', 'push', '-']],
    ['an entry row, FOR UPDATE', (s: string) => `SELECT * FROM "${s}".entries FOR UPDATE`, ['state', 'push', '-']],
    ['the entries table, for state rm', (s: string) => `LOCK TABLE "${s}".entries IN ACCESS EXCLUSIVE MODE`, ['state', 'rm', 'a', '--user-id', 'u']],
  ])('%s: the run ends with exit 5 after query_timeout=2, naming the lock as a cause', { timeout: 60_000 }, async (_name, lockSql, argv) => {
    const { schema, holder } = await held(lockSql);
    try {
      const started = Date.now();
      const doc = JSON.stringify({ version: 1, sessions: [{ name: 'a', user_id: 'u', session_id: 'trs_bbbbbbbbbbbb', mcp_url: 'https://m/y', tool_router_tools: [], config_version: 2, body_hash: 'h', body: null, applied_at: '2026-03-02T10:00:00.000Z' }] });
      const r = await runCli([...argv, '--state', `${stateUrl(db!, schema)}&query_timeout=2`], { cwd: project(), env: db!.env, stdin: doc });
      expect(r.exitCode).toBe(5);
      expect(r.stderr).toContain('the database did not answer within 2 s (a server that stopped answering, or a lock another session holds)');
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    // Nothing was written: the entry is as it was.
    expect(await sql(db!, `SELECT session_id FROM "${schema}".entries`)).toEqual([{ session_id: 'trs_aaaaaaaaaaaa' }]);
  });
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('SIGTERM to an apply waiting on a lock another session holds', () => {
  test.each([
    ['one SIGTERM: ended once the grace time is over', ['SIGTERM'] as NodeJS.Signals[], 'sessionctl: still busy 3 s after SIGTERM: stopping now\n'],
    ['two SIGTERMs: ended at once', ['SIGTERM', 'SIGTERM'] as NodeJS.Signals[], 'sessionctl: SIGTERM received again: stopping at once\n'],
    ['SIGINT: ended once the grace time is over, 130', ['SIGINT'] as NodeJS.Signals[], 'sessionctl: still busy 3 s after SIGINT: stopping now\n'],
  ])('%s', { timeout: 60_000 }, async (_name, signals, says) => {
    const schema = uniqueSchema('sigterm');
    schemas.push(schema);
    const dir = project();
    const state = stateUrl(db!, schema);
    expect((await runCli(['state', 'push', '-', '--state', state], { cwd: dir, env: db!.env, stdin: '{"version":1,"sessions":[]}' })).exitCode).toBe(0);
    const holder = testClient(db!);
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE "${schema}".locks IN ACCESS EXCLUSIVE MODE`);
    let waiting = 0;
    const poll = setInterval(() => {
      void sql<{ n: number }>(db!, `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = '"${schema}".locks'::regclass`).then((r) => (waiting = r[0]!.n), () => undefined);
    }, 100);
    try {
      const env = { ...db!.env, COMPOSIO_API_KEY: 'k-deadline-3', COMPOSIO_BASE_URL: 'http://127.0.0.1:9', SESSIONCTL_INTERRUPT_GRACE_MS: '1000' } as Record<string, string>;
      const r = await spawned(['apply', 'm', '--state', state], env, dir, () => waiting > 0, signals);
      expect([r.code, r.signal]).toEqual([signals[0] === 'SIGINT' ? 130 : 143, null]);
      expect(r.stderr).toContain(says);
      expect(r.ms).toBeLessThan(15_000);
    } finally {
      clearInterval(poll);
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });
});

/**
 * Runs the CLI (built from the sources) as its own process; once it has reached the database
 * (`ready`), sends the signals 300 ms apart; resolves with its exit code (or signal), stderr and
 * how long it ran after the first signal.
 */
async function spawned(argv: string[], env: Record<string, string>, cwd: string, ready: () => boolean, signals: NodeJS.Signals[]) {
  const main = await cliBundle();
  const child = spawn(process.execPath, [main, ...argv], { cwd, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env } });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  child.stdout.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // A hang detector: the test fails rather than wait for ever.
  const guard = setTimeout(() => child.kill('SIGKILL'), 30_000);
  for (let i = 0; i < 1000 && !ready() && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 20));
  const started = Date.now();
  for (const [i, signal] of signals.entries()) setTimeout(() => child.kill(signal), i * 300);
  const result = await exited;
  clearTimeout(guard);
  return { ...result, stderr, ms: Date.now() - started };
}

describe('signals on a run stuck on its state database', () => {
  const apply = (port: number) => ['apply', 'm', '--state', url(port)];
  const applyEnv = { ...ENV, COMPOSIO_API_KEY: 'k-deadline-2', COMPOSIO_BASE_URL: 'http://127.0.0.1:9', SESSIONCTL_INTERRUPT_GRACE_MS: '1000' };

  test.each([
    ['apply, black hole: one SIGTERM', 'black-hole' as const, apply, ['SIGTERM'], 143],
    ['apply, stalled after startup: one SIGTERM', 'stall-after-startup' as const, apply, ['SIGTERM'], 143],
    ['apply, stalled after startup: two SIGTERMs', 'stall-after-startup' as const, apply, ['SIGTERM', 'SIGTERM'], 143],
    ['state list, stalled after startup: one SIGTERM', 'stall-after-startup' as const, (p: number) => ['state', 'list', '--state', url(p)], ['SIGTERM'], 143],
    ['state push, stalled after startup: SIGINT', 'stall-after-startup' as const, (p: number) => ['state', 'push', 'doc.json', '--state', url(p)], ['SIGINT'], 130],
    ['state push, black hole: SIGINT then SIGTERM', 'black-hole' as const, (p: number) => ['state', 'push', 'doc.json', '--state', url(p)], ['SIGINT', 'SIGTERM'], 130],
  ] as Array<[string, 'black-hole' | 'stall-after-startup', (p: number) => string[], NodeJS.Signals[], number]>)('%s: ends with its exit code, saying so, well within the bound', { timeout: 60_000 }, async (_name, kind, argv, signals, code) => {
    const s = await stalled(kind);
    const dir = project();
    writeFileSync(join(dir, 'doc.json'), '{"version":1,"sessions":[]}');
    const r = await spawned(argv(s.port), applyEnv, dir, () => s.accepted() > 0, signals);
    expect([r.code, r.signal]).toEqual([code, null]);
    expect(r.stderr).toMatch(/sessionctl: SIG(TERM|INT) received( again)?: stopping at once\n|sessionctl: still busy 3 s after SIGTERM: stopping now\n/);
    expect(r.stderr).not.toContain(ENV.PGPASSWORD);
    expect(r.ms).toBeLessThan(15_000);
  });
});
