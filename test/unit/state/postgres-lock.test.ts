import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { forceUnlockWorkspace, readWorkspaceLock, releaseWorkspaceLock, takeWorkspaceLock } from '../../../src/state/postgres-lock.js';
import { migrate, workspaceLockKeys } from '../../../src/state/postgres-schema.js';
import { parsePostgresUrl, type PostgresTarget } from '../../../src/state/postgres-url.js';
import { db, dropSchema, openConnections, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';
import { testClient } from '../../setup/postgres.js';

/**
 * The PostgreSQL lock, function by function, on the real server of this run: the wait on the
 * server's advisory lock, a holder between its advisory lock and its row, what `state unlock`
 * does with a row whose holder is gone or is being replaced, and what a failure says. Each test
 * has a schema of its own (the advisory lock's key is the schema's and workspace's), and its
 * connections carry an application_name of their own, so that the test can count them.
 */

const schemas: string[] = [];
const clients: pg.Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.end().catch(() => undefined);
});
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const owner = (pid: number, timeoutMs?: number): StateLockOptions => ({ owner: { pid, hostname: 'host-a' }, isAlive: () => true, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });

/** A connection of the test itself (not one the code under test opens). */
async function connect(): Promise<pg.Client> {
  const c = testClient(db!);
  await c.connect();
  clients.push(c);
  return c;
}

/** A workspace in a fresh schema, its tables created unless `created` is false. */
async function workspace(created = true): Promise<{ target: PostgresTarget; app: string; keys: [number, number] }> {
  const schema = uniqueSchema('lock');
  schemas.push(schema);
  const app = `locktest-${randomBytes(4).toString('hex')}`;
  const target = parsePostgresUrl(`${stateUrl(db!, schema)}&application_name=${app}`, db!.env);
  if (created) await migrate(await connect(), target);
  return { target, app, keys: workspaceLockKeys(target) };
}

/** Polls `check` until it is true or `given up` (about 10 s); returns the last answer. */
async function until(check: () => Promise<boolean>, stop: () => boolean = () => false): Promise<boolean> {
  for (let i = 0; i < 500; i++) {
    if (stop()) return false;
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/** Whether a connection waits, not granted, for the workspace's advisory lock. */
async function waiting(keys: [number, number]): Promise<boolean> {
  const rows = await sql<{ n: number }>(
    db!,
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1::int4::oid AND objid = $2::int4::oid AND objsubid = 2`,
    keys,
  );
  return rows[0]!.n === 1;
}

/** Whether the backend `pid` has looked at the lock row (its last statement reads it). */
async function lookedAtRow(pid: number): Promise<boolean> {
  const rows = await sql<{ n: number }>(db!, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%JOIN pg_locks%'`, [pid]);
  return rows[0]!.n === 1;
}

async function lockRows(target: PostgresTarget): Promise<Array<Record<string, unknown>>> {
  return sql(db!, `SELECT workspace, lock_id, pid, hostname FROM "${target.schema}".locks ORDER BY lock_id`);
}

/** Plants a lock row as a holder (or a holder that is gone) would have written it. */
async function plantRow(client: pg.Client | undefined, target: PostgresTarget, lockId: string, backendPid = 'pg_backend_pid()'): Promise<void> {
  const text = `INSERT INTO "${target.schema}".locks (workspace, lock_id, pid, hostname, backend_pid) VALUES ($1, $2, 4321, 'host-b', ${backendPid})`;
  if (client !== undefined) await client.query(text, [target.workspace, lockId]);
  else await sql(db!, text, [target.workspace, lockId]);
}

const lockedMessage = (waited: string, who: string, unlock: string) =>
  `${waited}the state is locked by ${who}: another apply is running (or a state command). Wait for it with --lock-timeout (such as 5m); if its holder died, release the lock with \`sessionctl state unlock ${unlock}\`.`;

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL state lock', () => {
  test('a run given a timeout waits on the server until the holder releases, then holds the lock once; its lock_timeout is reset', async () => {
    const { target, keys } = await workspace();
    const a = await connect();
    const first = await takeWorkspaceLock(a, target, owner(1111));
    const b = await connect();
    let settled = false;
    const second = takeWorkspaceLock(b, target, owner(2222, 60_000)).finally(() => (settled = true));
    // The second run is queued on the server's lock (not looking at the row and giving up).
    expect(await until(() => waiting(keys), () => settled)).toBe(true);
    expect(settled).toBe(false);
    await releaseWorkspaceLock(a, target, first);
    const id = await second;
    expect(await lockRows(target)).toEqual([{ workspace: 'default', lock_id: id, pid: 2222, hostname: 'host-a' }]);
    expect((await b.query<{ lock_timeout: string }>('SHOW lock_timeout')).rows[0]!.lock_timeout).toBe('0');
    // Released once, it is free: the waiter did not take it twice.
    await releaseWorkspaceLock(b, target, id);
    expect(await lockRows(target)).toEqual([]);
    const c = await connect();
    expect((await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', keys)).rows[0]!.ok).toBe(true);
  });

  test('another failure while waiting (a statement timeout) is reported as itself, not as a lock held', async () => {
    const { target } = await workspace();
    await takeWorkspaceLock(await connect(), target, owner(1111));
    const b = await connect();
    await b.query('SET statement_timeout = 300');
    await expect(takeWorkspaceLock(b, target, owner(2222, 60_000))).rejects.toThrow(
      /^cannot take the lock of workspace "default": canceling statement due to statement timeout \(SQLSTATE 57014\)$/,
    );
  });

  test('a holder between its advisory lock and its row: the next run looks again until the row names it', async () => {
    const { target, keys } = await workspace();
    const x = await connect();
    await x.query('SELECT pg_advisory_lock($1, $2)', keys);
    const b = await connect();
    const backend = (await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    let settled = false;
    const taking = takeWorkspaceLock(b, target, owner(2222)).catch((e: unknown) => e).finally(() => (settled = true));
    // Once the run has looked at the (still missing) row, the holder writes it.
    expect(await until(() => lookedAtRow(backend), () => settled)).toBe(true);
    await plantRow(x, target, 'L-x');
    const err = (await taking) as Error;
    expect(err.message).toMatch(/^the state is locked by process 4321 on host-b \(role \w+\) since \S+ \(lock L-x\): another apply/);
  });

  test('a run without a timeout fails at its first look at a live holder, though the holder releases a moment later', async () => {
    const { target } = await workspace();
    const a = await connect();
    const first = await takeWorkspaceLock(a, target, owner(1111));
    const b = await connect();
    const backend = (await b.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    let settled = false;
    const taking = takeWorkspaceLock(b, target, owner(2222)).catch((e: unknown) => e).finally(() => (settled = true));
    expect(await until(() => lookedAtRow(backend), () => settled)).toBe(true);
    await releaseWorkspaceLock(a, target, first);
    expect(((await taking) as Error).message).toMatch(new RegExp(`^the state is locked by process 1111 on host-a \\(role \\w+\\) since \\S+ \\(lock ${first}\\): another apply`));
  });

  test('a holder that never writes its row, or a row its holder left: after looking for a while, the error names no one', async () => {
    const none = await workspace();
    const stale = await workspace();
    const x = await connect();
    await x.query('SELECT pg_advisory_lock($1, $2)', none.keys);
    await x.query('SELECT pg_advisory_lock($1, $2)', stale.keys);
    await plantRow(undefined, stale.target, 'L-gone', '1');
    const [e1, e2] = await Promise.all([
      takeWorkspaceLock(await connect(), none.target, owner(2222)).catch((e: unknown) => e),
      takeWorkspaceLock(await connect(), stale.target, owner(2222)).catch((e: unknown) => e),
    ]);
    const anonymous = lockedMessage('', 'another process (its lock cannot be read)', 'LOCK_ID');
    expect([(e1 as Error).message, (e2 as Error).message]).toEqual([anonymous, anonymous]);
  });

  test('reading who holds the lock never waits for a write in flight (which holds the row FOR SHARE)', async () => {
    const { target } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111));
    const writer = await connect();
    await writer.query('BEGIN');
    await writer.query(`SELECT 1 FROM "${target.schema}".locks WHERE workspace = 'default' FOR SHARE`);
    const reader = await connect();
    await reader.query("SET lock_timeout = '2s'");
    expect(await readWorkspaceLock(reader, target)).toMatchObject({ id, pid: 1111, hostname: 'host-a' });
    await writer.query('ROLLBACK');
  });

  test('a lock row without a pid or a host names neither', async () => {
    const { target } = await workspace();
    const id = await takeWorkspaceLock(await connect(), target, owner(1111));
    await sql(db!, `UPDATE "${target.schema}".locks SET pid = NULL, hostname = NULL`);
    const holder = await readWorkspaceLock(await connect(), target);
    expect(holder).toStrictEqual({ id, role: db!.env['PGUSER'], since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
  });

  test('the lock of a workspace never created, or free, is nobody; a lock table that cannot be read is an error that says so', async () => {
    const never = await workspace(false);
    expect(await readWorkspaceLock(await connect(), never.target)).toBeUndefined();
    const free = await workspace();
    expect(await readWorkspaceLock(await connect(), free.target)).toBeUndefined();
    await sql(db!, `DROP TABLE "${free.target.schema}".locks`);
    await expect(readWorkspaceLock(await connect(), free.target)).rejects.toThrow(
      `cannot read the lock of workspace "default": relation "${free.target.schema}.locks" does not exist (SQLSTATE 42P01)`,
    );
  });

  test('taking the lock where the lock table is missing says what failed', async () => {
    const { target } = await workspace();
    await sql(db!, `DROP TABLE "${target.schema}".locks`);
    await expect(takeWorkspaceLock(await connect(), target, owner(1111))).rejects.toThrow(
      `cannot take the lock of workspace "default": relation "${target.schema}.locks" does not exist (SQLSTATE 42P01)`,
    );
  });

  test('state unlock of a row whose holder is gone: the row is removed, no connection ended, and the connection of the unlock closed', async () => {
    const { target, app } = await workspace();
    await plantRow(undefined, target, 'L-stale', '1');
    const released = await forceUnlockWorkspace(target, db!.env, 'L-stale');
    expect(released).toStrictEqual({ holder: { id: 'L-stale', pid: 4321, hostname: 'host-b', role: db!.env['PGUSER'], since: expect.any(String) }, endedConnection: false });
    expect(await lockRows(target)).toEqual([]);
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('state unlock while another run is taking the lock over (it holds the advisory lock, the row is still the old holder’s): refused, nothing changed', async () => {
    const { target, keys } = await workspace();
    await plantRow(undefined, target, 'L-old', '1');
    await (await connect()).query('SELECT pg_advisory_lock($1, $2)', keys);
    await expect(forceUnlockWorkspace(target, db!.env, 'L-old')).rejects.toThrow(/^lock L-old is being taken over by another run right now; nothing was changed$/);
    expect(await lockRows(target)).toEqual([{ workspace: 'default', lock_id: 'L-old', pid: 4321, hostname: 'host-b' }]);
  });

  test('state unlock reads the row it removes under a row lock: a takeover committing meanwhile is seen, and nothing is removed', async () => {
    const { target, app } = await workspace();
    const holder = await connect();
    const id = await takeWorkspaceLock(holder, target, owner(1111));
    // A takeover in progress: it has the row locked and is changing the lock id.
    const x = await connect();
    await x.query('BEGIN');
    await x.query(`UPDATE "${target.schema}".locks SET lock_id = 'L-new' WHERE workspace = 'default'`);
    let settled = false;
    const unlocking = forceUnlockWorkspace(target, db!.env, id)
      .catch((e: unknown) => e)
      .finally(() => (settled = true));
    const blocked = () => sql<{ n: number }>(db!, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [app]).then((r) => r[0]!.n === 1);
    expect(await until(blocked, () => settled)).toBe(true);
    await x.query('COMMIT');
    expect(((await unlocking) as Error).message).toBe(`workspace "default" is locked by lock L-new, not ${id}; nothing was changed`);
    expect(await lockRows(target)).toEqual([{ workspace: 'default', lock_id: 'L-new', pid: 1111, hostname: 'host-a' }]);
  });

  test('state unlock holds the row it read until it commits: a takeover cannot change it between the read and the delete', async () => {
    const { target, app } = await workspace();
    await plantRow(undefined, target, 'L-stale', '1');
    // The delete waits, in a statement trigger (before it touches a row), for an advisory lock the test holds (keyed by the schema: runs in parallel do not share it).
    const gate = await connect();
    await gate.query('SELECT pg_advisory_lock(hashtext($1))', [target.schema]);
    await sql(db!, `CREATE FUNCTION "${target.schema}".gate() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock(hashtext('${target.schema}')); RETURN NULL; END $$`);
    await sql(db!, `CREATE TRIGGER gate BEFORE DELETE ON "${target.schema}".locks FOR EACH STATEMENT EXECUTE FUNCTION "${target.schema}".gate()`);
    let settled = false;
    const unlocking = forceUnlockWorkspace(target, db!.env, 'L-stale').finally(() => (settled = true));
    const atDelete = () => sql<{ n: number }>(db!, `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event = 'advisory'`, [app]).then((r) => r[0]!.n === 1);
    expect(await until(atDelete, () => settled)).toBe(true);
    const other = await connect();
    await other.query("SET lock_timeout = '300ms'");
    await expect(other.query(`UPDATE "${target.schema}".locks SET lock_id = 'L-new'`)).rejects.toThrow(/lock timeout/);
    await gate.query('SELECT pg_advisory_unlock(hashtext($1))', [target.schema]);
    expect((await unlocking).holder.id).toBe('L-stale');
    expect(await lockRows(target)).toEqual([]);
  });

  test('state unlock where nothing is locked, or where the lock table cannot be read', async () => {
    const never = await workspace(false);
    await expect(forceUnlockWorkspace(never.target, db!.env, 'L')).rejects.toThrow(/^workspace "default" is not locked; nothing to unlock$/);
    const free = await workspace();
    await expect(forceUnlockWorkspace(free.target, db!.env, 'L')).rejects.toThrow(/^workspace "default" is not locked; nothing to unlock$/);
    await sql(db!, `DROP TABLE "${free.target.schema}".locks`);
    await expect(forceUnlockWorkspace(free.target, db!.env, 'L')).rejects.toThrow(
      `cannot unlock workspace "default": relation "${free.target.schema}.locks" does not exist (SQLSTATE 42P01)`,
    );
  });
});
