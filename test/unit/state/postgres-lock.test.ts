import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { StateError } from '../../../src/diagnostics/errors.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { forceUnlockWorkspace, readWorkspaceLock, releaseWorkspaceLock, renewWorkspaceLock, takeWorkspaceLock } from '../../../src/state/postgres-lock.js';
import { migrate, workspaceLockKeys } from '../../../src/state/postgres-schema.js';
import { parsePostgresUrl, type PostgresTarget } from '../../../src/state/postgres-url.js';
import { db, dropSchema, openConnections, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';
import { testClient } from '../../setup/postgres.js';

/**
 * The PostgreSQL lock, function by function, on the real server of this run: a lease row taken in
 * one statement (inserted, or taken over once its lease ended, always with a fresh lock id), its
 * renewal, a run that waits (its clock and its pauses injected: no test waits for a lease to run
 * out, a lease ends by setting its end in the past), the row of a sessionctl before the lease, what
 * `state unlock` does, and what a failure says. Each test has a schema of its own, and its
 * connections carry an application_name of their own, so that the test can count them.
 */

const LEASE = 15_000;
const schemas: string[] = [];
const clients: pg.Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.end().catch(() => undefined);
});
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const owner = (pid: number, more: Partial<StateLockOptions> = {}): StateLockOptions => ({ owner: { pid, hostname: 'host-a' }, isAlive: () => true, ...more });

/** A connection of the test itself (not one the code under test opens). */
async function connect(): Promise<pg.Client> {
  const c = testClient(db!);
  await c.connect();
  clients.push(c);
  return c;
}

/** A workspace in a fresh schema, its tables created unless `created` is false. */
async function workspace(created = true): Promise<{ target: PostgresTarget; app: string; t: string }> {
  const schema = uniqueSchema('lock');
  schemas.push(schema);
  const app = `locktest-${randomBytes(4).toString('hex')}`;
  const target = parsePostgresUrl(`${stateUrl(db!, schema)}&application_name=${app}`, db!.env);
  if (created) await migrate(await connect(), target);
  return { target, app, t: `"${schema}".locks` };
}

interface Row {
  lock_id: string;
  pid: number | null;
  hostname: string | null;
  lease_ms: number;
  lapsed: boolean;
}

async function lockRows(t: string): Promise<Row[]> {
  return sql<Row>(db!, `SELECT lock_id, pid, hostname, (extract(epoch FROM expires_at - since) * 1000)::int AS lease_ms, expires_at < now() AS lapsed FROM ${t} ORDER BY lock_id`);
}

/** Ends the lease of the row now, as a holder killed a lease ago would have left it. */
async function lapse(t: string): Promise<void> {
  await sql(db!, `UPDATE ${t} SET expires_at = now() - interval '1 second'`);
}

/** The holder as the error and `lockHolder` name it: what the row says. */
async function holderText(t: string): Promise<{ since: string; expires: string }> {
  const [r] = await sql<{ since: Date; expires_at: Date }>(db!, `SELECT since, expires_at FROM ${t}`);
  return { since: r!.since.toISOString(), expires: r!.expires_at.toISOString() };
}

/**
 * A connection whose statements the test sees first, as "try" (the take) or "look" (the read of
 * the row), and may act on before each runs: what another run does between the two.
 */
function intercepted(client: pg.Client, before: (what: 'try' | 'look') => Promise<void>): pg.Client {
  const query = async (text: string, values?: unknown[]) => {
    await before(/^\s*INSERT/.test(text) ? 'try' : 'look');
    return client.query(text, values);
  };
  return { query } as unknown as pg.Client;
}

const lockedMessage = (waited: string, who: string, died: string) =>
  `${waited}the state is locked by ${who}: another apply is running (or a state command). Wait for it with --lock-timeout (such as 5m); if its holder died, ${died}.`;
const role = () => db!.env['PGUSER'];

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL state lock', () => {
  test('a free lock: one row with a fresh id, a lease from the database clock; a second run fails at once (one try, one look at the row), naming the holder and when its lease ends (a StateError)', async () => {
    const { target, t } = await workspace();
    const a = await connect();
    const id = await takeWorkspaceLock(a, target, owner(1111), LEASE);
    expect(await lockRows(t)).toEqual([{ lock_id: id, pid: 1111, hostname: 'host-a', lease_ms: LEASE, lapsed: false }]);
    const { since, expires } = await holderText(t);
    const seen: string[] = [];
    const second = intercepted(await connect(), async (what) => void seen.push(what));
    const err = await takeWorkspaceLock(second, target, owner(2222), LEASE).catch((e: unknown) => e);
    expect(seen).toEqual(['try', 'look']);
    expect(err).toBeInstanceOf(StateError);
    expect([(err as StateError).message, (err as StateError).file]).toEqual([
      lockedMessage('', `process 1111 on host-a (role ${role()}) since ${since} (lock ${id})`, `its lease ends at ${expires} and a run waiting then takes the lock over, or release it now with \`sessionctl state unlock ${id}\``),
      target.location,
    ]);
    expect((await lockRows(t)).map((r) => r.lock_id)).toEqual([id]);
  });

  test('a run with a timeout tries again at its pauses (250 ms, by its own clock) until the holder releases, then holds the lock once', async () => {
    const { target, t } = await workspace();
    const a = await connect();
    const first = await takeWorkspaceLock(a, target, owner(1111), LEASE);
    const pauses: number[] = [];
    const sleep = async (ms: number) => {
      pauses.push(ms);
      if (pauses.length === 3) await releaseWorkspaceLock(a, target, first);
    };
    const id = await takeWorkspaceLock(await connect(), target, owner(2222, { timeoutMs: 60_000, sleep }), LEASE);
    expect(pauses).toEqual([250, 250, 250]);
    expect(id).not.toBe(first);
    expect((await lockRows(t)).map((r) => [r.lock_id, r.pid])).toEqual([[id, 2222]]);
  });

  test('a run whose timeout passes gives up with how long it waited, by its own clock; its last pause is what was left', async () => {
    const { target, t } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    const { since, expires } = await holderText(t);
    let clock = Date.parse('2026-03-01T10:00:00.000Z');
    const pauses: number[] = [];
    const options = owner(2222, { timeoutMs: 600, now: () => new Date(clock), sleep: async (ms) => (pauses.push(ms), void (clock += ms)) });
    const err = await takeWorkspaceLock(await connect(), target, options, LEASE).catch((e: unknown) => e);
    expect(pauses).toEqual([250, 250, 100]);
    expect((err as Error).message).toBe(
      lockedMessage('waited 0.6s, and ', `process 1111 on host-a (role ${role()}) since ${since} (lock ${id})`, `its lease ends at ${expires} and a run waiting then takes the lock over, or release it now with \`sessionctl state unlock ${id}\``),
    );
  });

  test('a lock released between the try and the look at its row is tried again at once, without a pause', async () => {
    const { target, t } = await workspace();
    const a = await connect();
    const first = await takeWorkspaceLock(a, target, owner(1111), LEASE);
    const seen: string[] = [];
    const b = intercepted(await connect(), async (what) => {
      seen.push(what);
      if (what === 'look') await releaseWorkspaceLock(a, target, first);
    });
    const noPause = async () => {
      throw new Error('paused');
    };
    const id = await takeWorkspaceLock(b, target, owner(2222, { sleep: noPause }), LEASE);
    expect(seen).toEqual(['try', 'look', 'try']);
    expect((await lockRows(t)).map((r) => [r.lock_id, r.pid])).toEqual([[id, 2222]]);
  });

  test('a lock that changes hands at every try (refused, then no row at the look): three tries more at once, then the error names nobody', async () => {
    const { target, t } = await workspace();
    const seen: string[] = [];
    const b = intercepted(await connect(), async (what) => {
      seen.push(what);
      if (what === 'try') await sql(db!, `INSERT INTO ${t} (workspace, lock_id, pid, hostname, expires_at) VALUES ('default', 'L-x', 4321, 'host-b', now() + interval '1 hour')`);
      else await sql(db!, `DELETE FROM ${t}`);
    });
    const err = await takeWorkspaceLock(b, target, owner(2222), LEASE).catch((e: unknown) => e);
    expect(seen).toEqual(['try', 'look', 'try', 'look', 'try', 'look', 'try', 'look']);
    expect((err as Error).message).toBe(lockedMessage('', 'another process (its lock cannot be read)', 'release the lock with `sessionctl state unlock LOCK_ID`'));
  });

  test('a lease that ended is taken over in the same statement, with a new lock id: the old holder can no longer renew, and its release removes nothing', async () => {
    const { target, t } = await workspace();
    const old = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    await lapse(t);
    expect(await readWorkspaceLock(await connect(), target)).toBeUndefined();
    const id = await takeWorkspaceLock(await connect(), target, owner(2222), 5000);
    expect(id).not.toBe(old);
    expect(await lockRows(t)).toEqual([{ lock_id: id, pid: 2222, hostname: 'host-a', lease_ms: 5000, lapsed: false }]);
    expect(await renewWorkspaceLock(await connect(), target, old, LEASE)).toBe(false);
    await releaseWorkspaceLock(await connect(), target, old);
    expect((await lockRows(t)).map((r) => r.lock_id)).toEqual([id]);
  });

  test('eight runs at once on an ended lease: exactly one takes it over; each other names that one', async () => {
    const { target, t } = await workspace();
    await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    await lapse(t);
    const runs = await Promise.all(Array.from({ length: 8 }, async (_, i) => takeWorkspaceLock(await connect(), target, owner(3000 + i), LEASE).catch((e: unknown) => e as Error)));
    const won = runs.filter((r): r is string => typeof r === 'string');
    expect(won).toHaveLength(1);
    const [row] = await lockRows(t);
    expect(row!.lock_id).toBe(won[0]);
    for (const r of runs) if (typeof r !== 'string') expect(r.message).toMatch(new RegExp(`^the state is locked by process ${row!.pid} on host-a \\(role \\w+\\) since \\S+ \\(lock ${won[0]}\\): another apply`));
  });

  test('a renewal moves the lease end on by the database clock, fenced on the lock id', async () => {
    const { target, t } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    await lapse(t);
    expect(await renewWorkspaceLock(await connect(), target, id, 60_000)).toBe(true);
    const [r] = await sql<{ left_ms: number }>(db!, `SELECT (extract(epoch FROM expires_at - now()) * 1000)::int AS left_ms FROM ${t}`);
    expect(r!.left_ms).toBeGreaterThan(LEASE);
    expect(r!.left_ms).toBeLessThanOrEqual(60_000);
    expect(await renewWorkspaceLock(await connect(), target, 'another-id', 60_000)).toBe(false);
  });

  test('the row of a sessionctl before the lease (no lease end) holds the lock while its advisory lock is held, then is taken over', async () => {
    const { target, t } = await workspace();
    const old = await connect();
    await old.query('SELECT pg_advisory_lock($1, $2)', workspaceLockKeys(target));
    await old.query(`INSERT INTO ${t} (workspace, lock_id, pid, hostname, backend_pid) VALUES ('default', 'L-old', 4321, 'host-b', pg_backend_pid())`);
    const [{ since }] = (await sql<{ since: Date }>(db!, `SELECT since FROM ${t}`)) as [{ since: Date }];
    const who = `process 4321 on host-b (role ${role()}) since ${since.toISOString()} (lock L-old)`;
    expect(await readWorkspaceLock(await connect(), target)).toStrictEqual({ id: 'L-old', pid: 4321, hostname: 'host-b', role: role(), since: since.toISOString() });
    const err = await takeWorkspaceLock(await connect(), target, owner(2222), LEASE).catch((e: unknown) => e);
    expect((err as Error).message).toBe(lockedMessage('', who, 'release the lock with `sessionctl state unlock L-old`'));
    await old.query('SELECT pg_advisory_unlock($1, $2)', workspaceLockKeys(target));
    const id = await takeWorkspaceLock(await connect(), target, owner(2222), LEASE);
    expect((await lockRows(t)).map((r) => [r.lock_id, r.pid, r.lease_ms])).toEqual([[id, 2222, LEASE]]);
  });

  test("an older sessionctl's take over a lease (it sets backend_pid, keeps the lease) is refused by the table: it cannot take a lease row", async () => {
    const { target, t } = await workspace();
    await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    // The upsert of version 2, after its advisory lock (which nothing else holds now).
    const older = sql(
      db!,
      `INSERT INTO ${t} (workspace, lock_id, pid, hostname, role, backend_pid, since) VALUES ('default', 'L-older', 1, 'h', current_user, pg_backend_pid(), now())
       ON CONFLICT (workspace) DO UPDATE SET lock_id = EXCLUDED.lock_id, pid = EXCLUDED.pid, hostname = EXCLUDED.hostname, role = EXCLUDED.role, backend_pid = EXCLUDED.backend_pid, since = EXCLUDED.since`,
    );
    await expect(older).rejects.toThrow(`new row for relation "locks" violates check constraint "lease_rows_need_sessionctl_with_schema_3"`);
    expect((await lockRows(t)).map((r) => r.pid)).toEqual([1111]);
  });

  test('reading who holds the lock never waits for a write in flight (which holds the row FOR SHARE)', async () => {
    const { target } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    const writer = await connect();
    await writer.query('BEGIN');
    await writer.query(`SELECT 1 FROM "${target.schema}".locks WHERE workspace = 'default' FOR SHARE`);
    const reader = await connect();
    await reader.query("SET lock_timeout = '2s'");
    expect(await readWorkspaceLock(reader, target)).toMatchObject({ id, pid: 1111, hostname: 'host-a' });
    await writer.query('ROLLBACK');
  });

  test('a lock row without a pid or a host names neither; it says when its lease ends', async () => {
    const { target, t } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    await sql(db!, `UPDATE ${t} SET pid = NULL, hostname = NULL`);
    const { since, expires } = await holderText(t);
    expect(await readWorkspaceLock(await connect(), target)).toStrictEqual({ id, role: role(), since, expires });
  });

  test('the lock of a workspace never created, free, or whose lease ended is nobody; a lock table that cannot be read is an error that says so', async () => {
    const never = await workspace(false);
    expect(await readWorkspaceLock(await connect(), never.target)).toBeUndefined();
    const free = await workspace();
    expect(await readWorkspaceLock(await connect(), free.target)).toBeUndefined();
    await takeWorkspaceLock(await connect(), free.target, owner(1111), LEASE);
    await lapse(free.t);
    expect(await readWorkspaceLock(await connect(), free.target)).toBeUndefined();
    await sql(db!, `DROP TABLE ${free.t}`);
    await expect(readWorkspaceLock(await connect(), free.target)).rejects.toThrow(
      `cannot read the lock of workspace "default": relation "${free.target.schema}.locks" does not exist (SQLSTATE 42P01)`,
    );
  });

  test('taking the lock where the lock table is missing says what failed', async () => {
    const { target, t } = await workspace();
    await sql(db!, `DROP TABLE ${t}`);
    await expect(takeWorkspaceLock(await connect(), target, owner(1111), LEASE)).rejects.toThrow(
      `cannot take the lock of workspace "default": relation "${target.schema}.locks" does not exist (SQLSTATE 42P01)`,
    );
  });

  test('state unlock of a live lock: the row removed in one statement, its holder returned; the holder can no longer renew; the connection of the unlock closed', async () => {
    const { target, app, t } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    const { since, expires } = await holderText(t);
    const released = await forceUnlockWorkspace(target, db!.env, id);
    expect(released).toStrictEqual({ holder: { id, pid: 1111, hostname: 'host-a', role: role(), since, expires }, endedConnection: false });
    expect(await lockRows(t)).toEqual([]);
    expect(await renewWorkspaceLock(await connect(), target, id, LEASE)).toBe(false);
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('state unlock of a lease that ended (its holder died) removes it too', async () => {
    const { target, t } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    await lapse(t);
    expect((await forceUnlockWorkspace(target, db!.env, id)).holder.id).toBe(id);
    expect(await lockRows(t)).toEqual([]);
  });

  test('state unlock of another lock id: refused, nothing changed', async () => {
    const { target, t } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111), LEASE);
    await expect(forceUnlockWorkspace(target, db!.env, 'L-other')).rejects.toThrow(new RegExp(`^workspace "default" is locked by lock ${id}, not L-other; nothing was changed$`));
    expect((await lockRows(t)).map((r) => r.lock_id)).toEqual([id]);
  });

  test('state unlock where nothing is locked, or where the lock table cannot be read', async () => {
    const never = await workspace(false);
    await expect(forceUnlockWorkspace(never.target, db!.env, 'L')).rejects.toThrow(/^workspace "default" is not locked; nothing to unlock$/);
    const free = await workspace();
    await expect(forceUnlockWorkspace(free.target, db!.env, 'L')).rejects.toThrow(/^workspace "default" is not locked; nothing to unlock$/);
    await sql(db!, `DROP TABLE ${free.t}`);
    await expect(forceUnlockWorkspace(free.target, db!.env, 'L')).rejects.toThrow(
      `cannot unlock workspace "default": relation "${free.target.schema}.locks" does not exist (SQLSTATE 42P01)`,
    );
  });
});
