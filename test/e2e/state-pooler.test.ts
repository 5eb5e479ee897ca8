import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { stateBackend } from '../../src/state/backend.js';
import { killHolder, startHolder } from '../unit/state/holder-process.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, pgbouncer, poolerUrl, sql } from '../helpers/postgres.js';
import { testClient } from '../setup/postgres.js';
import { skipBecause } from '../helpers/skip.js';
import { processWorld, sessionctl, type Finished } from './state-processes.js';

/**
 * The PostgreSQL state through PgBouncer in transaction mode with a pool of two server
 * connections (`.ci/pgbouncer`, which `.ci/run` starts beside PostgreSQL): a client has a server
 * connection for one transaction only, so nothing may live on one across transactions (a session
 * lock, a named prepared statement, a SET). Two `sessionctl apply` processes at once, 20 rounds,
 * against one `sessionctl emulator`: each session created exactly once, and every one of them a row
 * in the database (read there directly, not through the pooler). A lock holder killed with -9: the
 * next run takes its lock over once its lease lapsed, or without a wait fails naming it. The
 * application's lookups, through it and through statement pooling.
 */

const ROUNDS = 20;
const MANIFESTS = 6;
const KEY = 'ak_pooler_apply_0001';
const world = processWorld('pooler', ['a', 'b'], MANIFESTS);

function summary(r: Finished): string {
  return /(\d+) created, (\d+) unchanged/.exec(r.stdout)?.[0] ?? `exit ${r.code}: ${r.stderr.split('\n')[0]}`;
}

describe.skipIf(skipBecause(pgbouncer === null, 'needs PgBouncer in transaction mode in front of the PostgreSQL server (the run printed why there is none)'))('the PostgreSQL state through PgBouncer in transaction mode', () => {
  test(`two applies at once, ${ROUNDS} rounds (every other one with --lock-timeout): each session created once, and recorded`, { timeout: 600_000 }, async () => {
    const { dir, emulator, schema } = world;
    const env = { ...db!.env, COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emulator.url };
    const outcomes = { locked: 0, waited: 0, after: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const waits = round % 2 === 1;
      await emulatorAdmin(emulator.url, 'POST', '/reset');
      await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'create', latency_ms: 30, times: 1000 });
      const workspace = `r${round}`;
      const url = poolerUrl(db!, pgbouncer!, schema, workspace);
      const args = ['apply', 'm', '--state', url, '--concurrency', '3', ...(waits ? ['--lock-timeout', '2m'] : [])];
      const [a, b] = await Promise.all([sessionctl(args, { cwd: join(dir, 'a'), env }).done, sessionctl(args, { cwd: join(dir, 'b'), env }).done]);
      await emulatorAdmin(emulator.url, 'DELETE', '/faults');
      const label = `round ${round}: ${summary(a!)} / ${summary(b!)}`;

      const sessions = (await emulatorAdmin(emulator.url, 'GET', '/sessions')).sessions as Array<{ session_id: string; user_id: string }>;
      expect(sessions, label).toHaveLength(MANIFESTS);
      expect(new Set(sessions.map((s) => s.user_id)).size, label).toBe(MANIFESTS);
      const rows = await sql<{ session_id: string }>(db!, `SELECT session_id FROM "${schema}".entries WHERE workspace = $1 ORDER BY session_id`, [workspace]);
      expect(rows.map((r) => r.session_id), label).toEqual(sessions.map((s) => s.session_id).sort());
      expect(await sql(db!, `SELECT * FROM "${schema}".locks WHERE workspace = $1`, [workspace]), `${label}: the lock was released`).toEqual([]);

      // One run created every session; the other waited for it, came after it, or met its lock.
      const created = `${MANIFESTS} created, 0 unchanged`;
      const [first, second] = summary(a!) === created ? [a!, b!] : [b!, a!];
      // Standard error is the progress, one line per manifest, and nothing else (no 42P05, no "cannot record").
      // Both runs may find no state (or no workspace) yet when they start, and say so in one line first.
      const started = (r: Finished): string => r.stderr.replace(/^note: new (state|workspace) at .* \(nothing is recorded there yet\)\n/, '');
      const besides = (r: Finished, what: string) => started(r).split('\n').filter((l) => !new RegExp(`^\\[\\d/\\d\\] ${what} svc-\\d\\d \\(user user-\\d\\d\\) trs_\\S+$`).test(l));
      // A run that met the lock and waits for it says so, once, naming the holder.
      const waitLine = /^waiting up to 2m \(--lock-timeout\) for the state lock held by process \d+ on \S+ \(role [^)]+\) since \S+ \(lock [0-9a-f-]{36}\)$/;
      expect([first.code, summary(first), besides(first, 'created')], label).toEqual([0, created, ['']]);
      if (second.code === 0) {
        expect([second.code, summary(second), besides(second, 'unchanged').filter((l) => !(waits && waitLine.test(l)))], label).toEqual([0, `0 created, ${MANIFESTS} unchanged`, ['']]);
        outcomes[waits ? 'waited' : 'after']++;
      } else {
        expect(waits, `${label}: only a run without --lock-timeout meets the lock`).toBe(false);
        expect([second.code, second.stdout, started(second)], label).toEqual([
          5,
          '',
          expect.stringMatching(
            /^error: postgres:\/\/\S+: the state is locked by process \d+ on \S+ \(role \w+\) since \S+ \(lock [0-9a-f-]{36}\): another apply is running \(or a state command\)\. Wait for it with --lock-timeout \(such as 5m\); if its holder died, its lease ends at \S+ and a run waiting then takes the lock over, or release it now with `sessionctl state unlock [0-9a-f-]{36}`\.\n$/,
          ),
        ]);
        outcomes.locked++;
      }
    }
    console.log(`through PgBouncer, ${ROUNDS} rounds of two applies at once: ${outcomes.locked} met the lock, ${outcomes.waited} waited for it, ${outcomes.after} came after the first`);
  });

  test('kill -9 of the lock holder: a run without a wait fails naming it and when its lease ends (exit 5); one that waits longer than the lease takes the lock over', { timeout: 120_000 }, async () => {
    const { dir, schema } = world;
    const env = { ...db!.env };
    // A holder with a lease of 1 s, killed: the next run waits (up to a minute) and takes over.
    const short = poolerUrl(db!, pgbouncer!, schema, 'kill-short');
    const h = await startHolder(short, env, dir, 1000);
    expect(await h.ask('record by-holder')).toBe('recorded by-holder');
    await killHolder(h);
    const next = await sessionctl(['state', 'rm', 'by-holder', '--state', short, '--lock-timeout', '1m'], { cwd: dir, env }).done;
    // The lease may still run when it starts (it then says that it waits, once), or have ended.
    expect([next.code, next.stderr.replace(/^waiting up to 1m \(--lock-timeout\) for the state lock held by process \d+ on \S+ \(role [^)]+\) since \S+ \(lock [0-9a-f-]{36}\)\n/, '')]).toEqual([0, '']);
    expect(next.stdout).toBe(`Removed from ${short}:\n  -  by-holder  user u1  trs_by-holder\n\nThe sessions themselves were not deleted; the next apply of these manifests (for a per-user manifest, the next ensure for that user) creates new ones.\n`);
    expect(await sql(db!, `SELECT * FROM "${schema}".entries WHERE workspace = 'kill-short'`)).toEqual([]);
    expect(await sql(db!, `SELECT * FROM "${schema}".locks WHERE workspace = 'kill-short'`)).toEqual([]);

    // A holder with a lease of 10 minutes, killed: a run without a wait names it and its lease end; `state unlock` frees it.
    const long = poolerUrl(db!, pgbouncer!, schema, 'kill-long');
    const k = await startHolder(long, env, dir, 600_000);
    expect(await k.ask('record by-holder')).toBe('recorded by-holder');
    await killHolder(k);
    const [row] = await sql<{ since: Date; expires_at: Date }>(db!, `SELECT since, expires_at FROM "${schema}".locks WHERE workspace = 'kill-long'`);
    const refused = await sessionctl(['state', 'rm', 'by-holder', '--state', long], { cwd: dir, env }).done;
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      5,
      '',
      `error: ${long}: the state is locked by process ${k.child.pid} on ${hostname()} (role ${db!.env['PGUSER']}) since ${row!.since.toISOString()} (lock ${k.id}): another apply is running (or a state command). Wait for it with --lock-timeout (such as 5m); if its holder died, its lease ends at ${row!.expires_at.toISOString()} and a run waiting then takes the lock over, or release it now with \`sessionctl state unlock ${k.id}\`.\n`,
    ]);
    const unlocked = await sessionctl(['state', 'unlock', k.id, '--state', long], { cwd: dir, env }).done;
    expect([unlocked.code, unlocked.stderr]).toEqual([0, '']);
    const after = await sessionctl(['state', 'rm', 'by-holder', '--state', long], { cwd: dir, env }).done;
    expect([after.code, after.stderr]).toEqual([0, '']);
    expect(await sql(db!, `SELECT * FROM "${schema}".entries WHERE workspace = 'kill-long'`)).toEqual([]);
  });

  const entry = { name: 'a', user_id: 'u1', session_id: 'trs_a', mcp_url: 'm', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z' };

  /** A workspace with one entry `a`, applied through the transaction-mode pooler. */
  async function applied(workspace: string): Promise<void> {
    const state = await stateBackend(poolerUrl(db!, pgbouncer!, world.schema, workspace), world.dir, { env: db!.env }).openLocked({ owner: { pid: 4242, hostname: 'host-a' }, isAlive: () => true });
    await state.record(entry);
    await state.unlock();
  }

  test("the application's lookups, 20 at once through the transaction-mode pooler", async () => {
    await applied('lookups');
    const reader = await stateBackend(poolerUrl(db!, pgbouncer!, world.schema, 'lookups'), world.dir, { env: db!.env }).openReader();
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? reader.get('a', 'u1') : reader.list().then((l) => l[0]))));
    expect(many).toEqual(Array.from({ length: 20 }, () => entry));
    await reader.close();
  });

  test.skipIf(skipBecause(pgbouncer !== null && pgbouncer.statementDatabase === null, 'needs the database served in statement mode too (.ci/pgbouncer: DATABASE_statement)'))(
    "the application's lookups through statement pooling, which refuses an explicit transaction: each is one message, read-only all the same",
    async () => {
      await applied('statement');
      const client = testClient(db!, 10_000, pgbouncer!, pgbouncer!.statementDatabase!);
      await client.connect();
      await expect(client.query('BEGIN READ ONLY')).rejects.toThrow('transaction blocks not allowed in statement pooling mode');
      await client.end().catch(() => undefined);
      const reader = await stateBackend(poolerUrl(db!, pgbouncer!, world.schema, 'statement', pgbouncer!.statementDatabase!), world.dir, { env: db!.env }).openReader();
      expect([await reader.get('a', 'u1'), await reader.get('a', 'u2'), await reader.list()]).toEqual([entry, undefined, [entry]]);
      await reader.close();
    },
  );
});
