import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { InputError } from '../diagnostics/errors.js';
import { lockedError, sleep, type ForcedUnlock, type LockHolder, type LockOwner, type StateLockOptions } from './lock.js';
import { connectClient, databaseError, table, type Env } from './postgres-connect.js';
import { Needs } from './postgres-privileges.js';
import { schemaVersion, workspaceLockKeys } from './postgres-schema.js';
import type { PostgresTarget } from './postgres-url.js';

/**
 * The lock of a PostgreSQL workspace: a row in `locks` with a lease, which its holder renews while
 * it runs (postgres-lease.ts) and removes at the end.
 *
 * Why a lease rather than a session advisory lock held on a connection of the run's own: through
 * a transaction-mode pooler (PgBouncer's default pooled endpoint), a client has a server
 * connection only for one transaction, so a session-level lock stays behind on a pooled server
 * connection and the next run takes it again. A row and a lease need no connection to last: it
 * is taken in one statement (an insert, or an update of a row whose lease has ended), against the
 * database's clock, never the client's. Every write of the holder is fenced on the row's lock id,
 * held FOR SHARE until the write commits, and each take gives a fresh lock id, so a holder that
 * lost its lock (released by `state unlock`, or taken over once its lease lapsed) writes nothing.
 *
 * What it costs: the lock of a run killed with -9 is not released at once, as the advisory lock
 * was when its connection ended; it lapses at the end of its lease (15 s by default), and a run
 * that waits (`--lock-timeout`) then takes it over. `state unlock` removes it at once.
 *
 * A row of a sessionctl before the lease (schema version 2: no `expires_at`, an advisory lock held
 * by `backend_pid`) still holds the lock while that advisory lock is held, so an upgrade never
 * takes over a run of the older version.
 */

/** How long a lock lasts unless its holder renews it, by default. */
export const DEFAULT_LEASE_MS = 15_000;
/** The schema version whose migration added the lease (`expires_at`). */
const LEASE_VERSION = 3;
/** Between two looks of a run that waits for the lock. */
const POLL_MS = 250;
/** Looks at once, without a pause, when the lock was released or lapsed between the try and the look. */
const QUICK_RETRIES = 3;

/** Anything that runs one statement: a client, a connection of a pool, a pool. */
type Queryable = Pick<pg.ClientBase, 'query'>;

interface LockRow {
  lock_id: string;
  pid: number | null;
  hostname: string | null;
  role: string;
  since: Date;
  expires_at: Date | null;
  /** Whether the row holds the lock now (the database's clock). */
  live: boolean;
}

function holderOf(row: LockRow): LockHolder {
  return {
    id: row.lock_id,
    ...(row.pid !== null ? { pid: row.pid } : {}),
    ...(row.hostname !== null ? { hostname: row.hostname } : {}),
    role: row.role,
    since: row.since.toISOString(),
    ...(row.expires_at !== null ? { expires: row.expires_at.toISOString() } : {}),
  };
}

/** The lease end of a row `l` at a schema `version` (before the lease, none). */
function expiresOf(version: number): string {
  return version >= LEASE_VERSION ? 'l.expires_at' : 'NULL::timestamptz';
}

/**
 * Whether the row `l` holds the lock now: its lease has not ended; or, a row of a sessionctl before
 * the lease, its holder's connection still holds the advisory lock. $2, $3: the advisory keys.
 */
function liveSql(version: number): string {
  const expires = expiresOf(version);
  // Never NULL (NOT NULL would be neither true nor false, and a take would never take such a row).
  return `(coalesce(${expires} >= now(), false) OR (${expires} IS NULL AND EXISTS (SELECT 1 FROM pg_locks a
    WHERE a.locktype = 'advisory' AND a.granted AND a.classid = $2::int4::oid AND a.objid = $3::int4::oid AND a.objsubid = 2 AND a.pid = l.backend_pid)))`;
}

async function readLockRow(db: Queryable, target: PostgresTarget, version: number): Promise<LockRow | undefined> {
  const r = await db.query<LockRow>(
    `SELECT l.lock_id, l.pid, l.hostname, l.role, l.since, ${expiresOf(version)} AS expires_at, ${liveSql(version)} AS live
       FROM ${table(target, 'locks')} l WHERE l.workspace = $1`,
    [target.workspace, ...workspaceLockKeys(target)],
  );
  return r.rows[0];
}

/** One statement: the row inserted, or taken over when its lease has ended; whether `id` holds the lock now. */
async function tryTake(db: Queryable, target: PostgresTarget, id: string, owner: LockOwner, leaseMs: number): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO ${table(target, 'locks')} AS l (workspace, lock_id, pid, hostname, role, backend_pid, since, expires_at)
     VALUES ($1, $4, $5, $6, current_user, NULL, now(), now() + $7::float8 * interval '1 millisecond')
     ON CONFLICT (workspace) DO UPDATE SET lock_id = EXCLUDED.lock_id, pid = EXCLUDED.pid, hostname = EXCLUDED.hostname,
       role = EXCLUDED.role, backend_pid = NULL, since = EXCLUDED.since, expires_at = EXCLUDED.expires_at
     WHERE NOT ${liveSql(LEASE_VERSION)}`,
    [target.workspace, ...workspaceLockKeys(target), id, owner.pid, owner.hostname, leaseMs],
  );
  return r.rowCount === 1;
}

/**
 * Takes the lock of a workspace whose schema is current, with a lease of `leaseMs`; returns its
 * lock id. A lock another run holds fails at once, naming it, or with a timeout is tried again
 * every 250 ms until it is free or lapses, or the timeout passes.
 */
export async function takeWorkspaceLock(db: Queryable, target: PostgresTarget, options: StateLockOptions, leaseMs: number): Promise<string> {
  const timeoutMs = Math.max(0, Math.ceil(options.timeoutMs ?? 0));
  const now = options.now ?? (() => new Date());
  const pause = options.sleep ?? sleep;
  const start = now().getTime();
  let quick = 0;
  let told = false;
  try {
    for (;;) {
      const id = randomUUID();
      if (await tryTake(db, target, id, options.owner, leaseMs)) return id;
      const row = await readLockRow(db, target, LEASE_VERSION);
      if (row?.live !== true && quick++ < QUICK_RETRIES) continue;
      const waited = now().getTime() - start;
      if (waited >= timeoutMs) throw lockedError(target.location, row?.live === true ? holderOf(row) : undefined, timeoutMs);
      if (!told) options.onWait?.(row?.live === true ? holderOf(row) : undefined, timeoutMs);
      told = true;
      await pause(Math.min(POLL_MS, timeoutMs - waited));
    }
  } catch (err) {
    throw databaseError(err, target, `take the lock of workspace "${target.workspace}"`, Needs.write);
  }
}

/** Moves the lease's end to `leaseMs` from now; false when `id` no longer holds the lock. */
export async function renewWorkspaceLock(db: Queryable, target: PostgresTarget, id: string, leaseMs: number): Promise<boolean> {
  const r = await db.query(`UPDATE ${table(target, 'locks')} SET expires_at = now() + $3::float8 * interval '1 millisecond' WHERE workspace = $1 AND lock_id = $2`, [
    target.workspace,
    id,
    leaseMs,
  ]);
  return r.rowCount === 1;
}

/** Removes the row, if it is still ours. */
export async function releaseWorkspaceLock(db: Queryable, target: PostgresTarget, id: string): Promise<void> {
  await db.query(`DELETE FROM ${table(target, 'locks')} WHERE workspace = $1 AND lock_id = $2`, [target.workspace, id]);
}

/**
 * `state unlock LOCK_ID` (terraform's force-unlock): when LOCK_ID is the workspace's lock, removes
 * its row, in one statement. The holder, if it still runs, can no longer write (its writes are
 * fenced on the row), and its next renewal stops it.
 */
export async function forceUnlockWorkspace(target: PostgresTarget, env: Env, lockId: string): Promise<ForcedUnlock> {
  const client = await connectClient(target, env);
  try {
    const version = await schemaVersion(client, target);
    if (version === 0) throw notLocked(target);
    const removed = await client.query<LockRow>(
      `DELETE FROM ${table(target, 'locks')} l WHERE l.workspace = $1 AND l.lock_id = $2
       RETURNING l.lock_id, l.pid, l.hostname, l.role, l.since, ${expiresOf(version)} AS expires_at, false AS live`,
      [target.workspace, lockId],
    );
    if (removed.rows[0] !== undefined) return { holder: holderOf(removed.rows[0]), endedConnection: false };
    const row = await readLockRow(client, target, version);
    if (row === undefined) throw notLocked(target);
    throw new InputError(`workspace "${target.workspace}" is locked by lock ${row.lock_id}, not ${lockId}; nothing was changed`, target.location);
  } catch (err) {
    throw databaseError(err, target, `unlock workspace "${target.workspace}"`, Needs.write);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The lock of the workspace now, or undefined when it is free (a lease that lapsed is free). */
export async function readWorkspaceLock(client: pg.ClientBase, target: PostgresTarget): Promise<LockHolder | undefined> {
  const version = await schemaVersion(client, target);
  if (version === 0) return undefined;
  try {
    const row = await readLockRow(client, target, version);
    return row?.live === true ? holderOf(row) : undefined;
  } catch (err) {
    throw databaseError(err, target, `read the lock of workspace "${target.workspace}"`);
  }
}

function notLocked(target: PostgresTarget): InputError {
  return new InputError(`workspace "${target.workspace}" is not locked; nothing to unlock`, target.location);
}
