import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { InputError } from '../diagnostics/errors.js';
import { lockedError, sleep, type ForcedUnlock, type LockHolder, type StateLockOptions } from './lock.js';
import { connectClient, databaseError, sqlState, table, type Env } from './postgres-connect.js';
import { schemaVersion, workspaceLockKeys } from './postgres-schema.js';
import type { PostgresTarget } from './postgres-url.js';

/**
 * The lock of a PostgreSQL workspace: a session-level advisory lock held on a dedicated connection
 * for the whole run, plus a row in `locks` that says who holds it.
 *
 * Why an advisory lock rather than a lock row with a lease: the server releases it the moment the
 * holder's connection ends, so a run killed with -9, a crashed runner or a cancelled CI job never
 * leaves a stale lock to wait out or to break (no lease to tune, no clock to trust, no heartbeat).
 * The row carries what the advisory lock cannot: an id for `state unlock`, the holder's host, pid
 * and role, and since when. Every write of the holder is fenced on that row (the lock id must
 * still be there, held `FOR SHARE` until the write commits), so a holder that lost its lock (ended
 * by `state unlock`, or its connection dropped and another run took over) can no longer write.
 */

/** How long a run that finds the lock taken waits for its holder's row to appear. */
const HOLDER_ROW_WAIT_MS = 3000;

interface LockRow {
  lock_id: string;
  pid: number | null;
  hostname: string | null;
  role: string;
  since: Date;
  backend_pid: number;
  /** Whether the advisory lock is held by the connection that wrote the row. */
  live: boolean;
  /** The backend that holds the advisory lock now, if any. */
  holder_backend: number | null;
}

function holderOf(row: LockRow): LockHolder {
  return {
    id: row.lock_id,
    ...(row.pid !== null ? { pid: row.pid } : {}),
    ...(row.hostname !== null ? { hostname: row.hostname } : {}),
    role: row.role,
    since: row.since.toISOString(),
  };
}

async function readLockRow(client: pg.ClientBase, target: PostgresTarget, forUpdate = false): Promise<LockRow | undefined> {
  const [k1, k2] = workspaceLockKeys(target);
  const r = await client.query<LockRow>(
    `SELECT l.lock_id, l.pid, l.hostname, l.role, l.since, l.backend_pid, coalesce(a.pid = l.backend_pid, false) AS live, a.pid AS holder_backend
       FROM ${table(target, 'locks')} l
       LEFT JOIN pg_locks a ON a.locktype = 'advisory' AND a.granted AND a.classid = $2::int4::oid AND a.objid = $3::int4::oid AND a.objsubid = 2
      WHERE l.workspace = $1${forUpdate ? ' FOR UPDATE OF l' : ''}`,
    [target.workspace, k1, k2],
  );
  return r.rows[0];
}

/** Takes the advisory lock (waiting up to `timeoutMs`), then writes the row; returns the lock id. */
export async function takeWorkspaceLock(client: pg.Client, target: PostgresTarget, options: StateLockOptions): Promise<string> {
  const [k1, k2] = workspaceLockKeys(target);
  const timeoutMs = Math.max(0, Math.ceil(options.timeoutMs ?? 0));
  try {
    // The holder writes its row just after it takes the advisory lock: a run that finds the lock
    // taken and no row yet looks again for a moment, so that it can say who holds it.
    const lookUntil = Date.now() + HOLDER_ROW_WAIT_MS;
    for (let wait = timeoutMs; !(await advisoryLock(client, k1, k2, wait)); wait = 0) {
      const row = await readLockRow(client, target);
      if (row?.live === true || Date.now() > lookUntil) throw lockedError(target.location, row?.live === true ? holderOf(row) : undefined, timeoutMs);
      await sleep(20);
    }
    const id = randomUUID();
    await client.query(
      `INSERT INTO ${table(target, 'locks')} (workspace, lock_id, pid, hostname, role, backend_pid, since)
       VALUES ($1, $2, $3, $4, current_user, pg_backend_pid(), now())
       ON CONFLICT (workspace) DO UPDATE SET lock_id = EXCLUDED.lock_id, pid = EXCLUDED.pid, hostname = EXCLUDED.hostname,
         role = EXCLUDED.role, backend_pid = EXCLUDED.backend_pid, since = EXCLUDED.since`,
      [target.workspace, id, options.owner.pid, options.owner.hostname],
    );
    return id;
  } catch (err) {
    throw databaseError(err, target, `take the lock of workspace "${target.workspace}"`);
  }
}

/** With no timeout, one try; with one, a wait bounded by the server's `lock_timeout`. */
async function advisoryLock(client: pg.Client, k1: number, k2: number, timeoutMs: number): Promise<boolean> {
  if (timeoutMs === 0) {
    const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [k1, k2]);
    return r.rows[0]?.ok === true;
  }
  await client.query(`SET lock_timeout = ${timeoutMs}`);
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', [k1, k2]);
    return true;
  } catch (err) {
    if (sqlState(err) === '55P03') return false; // lock_not_available: the timeout passed
    throw err;
  } finally {
    await client.query('SET lock_timeout = 0');
  }
}

/** Removes the row (if it is still ours) and the advisory lock; ending the connection would too. */
export async function releaseWorkspaceLock(client: pg.Client, target: PostgresTarget, id: string): Promise<void> {
  const [k1, k2] = workspaceLockKeys(target);
  await client.query(`DELETE FROM ${table(target, 'locks')} WHERE workspace = $1 AND lock_id = $2`, [target.workspace, id]);
  await client.query('SELECT pg_advisory_unlock($1, $2)', [k1, k2]);
}

/**
 * `state unlock LOCK_ID` (terraform's force-unlock): when LOCK_ID is the workspace's lock, ends the
 * holder's database connection if it is still open (a host that vanished leaves it open until
 * TCP notices, which can take hours) and removes the row. The holder, if it still runs, can no
 * longer write: its writes are fenced on the row.
 */
export async function forceUnlockWorkspace(target: PostgresTarget, env: Env, lockId: string): Promise<ForcedUnlock> {
  const client = await connectClient(target, env);
  try {
    if ((await schemaVersion(client, target)) === 0) throw notLocked(target);
    await client.query('BEGIN');
    const row = await readLockRow(client, target, true);
    if (row === undefined) throw notLocked(target);
    if (row.lock_id !== lockId) throw new InputError(`workspace "${target.workspace}" is locked by lock ${row.lock_id}, not ${lockId}; nothing was changed`, target.location);
    if (row.holder_backend !== null && row.holder_backend !== row.backend_pid) {
      throw new InputError(`lock ${lockId} is being taken over by another run right now; nothing was changed`, target.location);
    }
    let endedConnection = false;
    if (row.live) {
      try {
        // Waits (up to 5 s) until the backend has exited, so the advisory lock is free on return.
        await client.query('SELECT pg_terminate_backend($1, 5000)', [row.backend_pid]);
      } catch (err) {
        if (sqlState(err) !== '42501') throw err;
        throw new InputError(
          `lock ${lockId} is still held by a live database connection (backend ${row.backend_pid}, role ${row.role}) that this role may not end; nothing was changed. A superuser, a member of pg_signal_backend or role ${row.role} can.`,
          target.location,
        );
      }
      endedConnection = true;
    }
    await client.query(`DELETE FROM ${table(target, 'locks')} WHERE workspace = $1 AND lock_id = $2`, [target.workspace, lockId]);
    await client.query('COMMIT');
    return { holder: holderOf(row), endedConnection };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw databaseError(err, target, `unlock workspace "${target.workspace}"`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The lock of the workspace now, or undefined when it is free. */
export async function readWorkspaceLock(client: pg.ClientBase, target: PostgresTarget): Promise<LockHolder | undefined> {
  if ((await schemaVersion(client, target)) === 0) return undefined;
  try {
    const row = await readLockRow(client, target);
    return row?.live === true ? holderOf(row) : undefined;
  } catch (err) {
    throw databaseError(err, target, `read the lock of workspace "${target.workspace}"`);
  }
}

function notLocked(target: PostgresTarget): InputError {
  return new InputError(`workspace "${target.workspace}" is not locked; nothing to unlock`, target.location);
}
