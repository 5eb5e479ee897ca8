import type pg from 'pg';
import { StateError } from '../diagnostics/errors.js';
import { databaseError, table } from './postgres-connect.js';
import { FLEET_SELECT, rowToSession, type FleetRow } from './postgres-fleet-rows.js';
import type { FleetRollout } from './fleet-rollout.js';
import type { PostgresTarget } from './postgres-url.js';
import { LockGone } from './postgres-writer.js';

/**
 * A rollout's statements over the pipeline's pool, under the workspace's lock. Pages are read by
 * the primary key (keyset on the user id, never OFFSET), so a page costs the same at the end of a
 * fleet of 100,000 as at its start; each write is one statement for a whole batch, fenced on the
 * lock in its own transaction, so a run whose lock was taken over writes nothing.
 */
export function postgresRollout(pool: pg.Pool, target: PostgresTarget, lockId: string): FleetRollout {
  const t = (name: string) => table(target, name);
  const ws = target.workspace;
  const fenced = (doing: string, text: string, values: unknown[]) => fencedWrite(pool, target, lockId, doing, text, values);
  return {
    sessions: async (q) => {
      try {
        const r = await pool.query<FleetRow>(
          `SELECT ${FLEET_SELECT} FROM ${t('fleet')}
           WHERE workspace = $1 AND name = $2 AND session_id <> '' AND ($3::int IS NULL OR version IS NULL OR version < $3)
             AND ($4::text IS NULL OR user_id > $4) AND ($5::text IS NULL OR user_id = $5)
           ORDER BY user_id LIMIT $6`,
          [ws, q.name, q.below ?? null, q.after ?? null, q.userId ?? null, q.limit],
        );
        return r.rows.map(rowToSession);
      } catch (err) {
        throw databaseError(err, target, `read the sessions of "${q.name}"`);
      }
    },
    rolledOut: (rows) =>
      rows.length === 0
        ? Promise.resolve(0)
        : fenced(
            `record ${rows.length} sessions rolled out`,
            `UPDATE ${t('fleet')} f SET config_version = u.config_version, version = u.version, body_hash = u.body_hash,
               tool_router_tools = u.tools::jsonb, mcp_url = u.mcp_url
             FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::int[], $7::text[], $8::text[], $9::text[])
               AS u(name, user_id, session_id, config_version, version, body_hash, tools, mcp_url)
             WHERE f.workspace = $1 AND f.name = u.name AND f.user_id = u.user_id AND f.session_id = u.session_id`,
            [
              ws,
              rows.map((r) => r.name),
              rows.map((r) => r.user_id),
              rows.map((r) => r.session_id),
              rows.map((r) => r.config_version),
              rows.map((r) => r.version),
              rows.map((r) => r.body_hash),
              rows.map((r) => JSON.stringify(r.tool_router_tools)),
              rows.map((r) => r.mcp_url),
            ],
          ),
    removeSessions: (rows) =>
      rows.length === 0
        ? Promise.resolve(0)
        : fenced(
            `remove ${rows.length} sessions from the state`,
            `DELETE FROM ${t('fleet')} f USING unnest($2::text[], $3::text[], $4::text[]) AS g(name, user_id, session_id)
             WHERE f.workspace = $1 AND f.name = g.name AND f.user_id = g.user_id AND f.session_id = g.session_id AND f.session_id <> ''`,
            [ws, rows.map((r) => r.name), rows.map((r) => r.user_id), rows.map((r) => r.session_id)],
          ),
    createsUnderWay: async (name, before) => {
      try {
        const r = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${t('fleet')} WHERE workspace = $1 AND name = $2 AND session_id = ''
             AND claim_state IN ('claimed', 'sent') AND claim_expires >= now() AND claim_since < $3::timestamptz`,
          [ws, name, before],
        );
        return r.rows[0]?.n ?? 0;
      } catch (err) {
        throw databaseError(err, target, `count the creates under way of "${name}"`);
      }
    },
    clock: () => databaseClock(pool, target),
  };
}

/** One write in its own transaction, only while this run holds the workspace's lock; answers the rows it changed. */
async function fencedWrite(pool: pg.Pool, target: PostgresTarget, lockId: string, doing: string, text: string, values: unknown[]): Promise<number> {
  const client = await pool.connect().catch((err: unknown) => {
    throw databaseError(err, target, 'connect to the state database');
  });
  try {
    await client.query('BEGIN');
    // Not waited on to reach the disk: a write lost with a crash of the server leaves a row behind
    // (or one more to remove), which the next run finds done (a 409 read back, a 404) and records.
    await client.query('SET LOCAL synchronous_commit = off');
    const held = await client.query(`SELECT 1 FROM ${table(target, 'locks')} WHERE workspace = $1 AND lock_id = $2 FOR SHARE`, [target.workspace, lockId]);
    if (held.rowCount !== 1) throw new LockGone();
    const n = (await client.query(text, values)).rowCount ?? 0;
    await client.query('COMMIT');
    client.release();
    return n;
  } catch (err) {
    client.release(true);
    if (err instanceof LockGone) {
      throw new StateError(`the state lock ${lockId} is no longer held (released with \`sessionctl state unlock\`, or taken over after its lease lapsed): could not ${doing}`, target.location);
    }
    throw databaseError(err, target, doing);
  }
}

/** Now by the database's clock. */
async function databaseClock(pool: pg.Pool, target: PostgresTarget): Promise<string> {
  try {
    // clock_timestamp, not now(): the moment of the read, after every commit this run saw; to the
    // microsecond, as the database keeps claim_since (a Date would round it down to the ms).
    const r = await pool.query<{ now: string }>(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS now`);
    return r.rows[0]!.now;
  } catch (err) {
    throw databaseError(err, target, 'read the database clock');
  }
}
