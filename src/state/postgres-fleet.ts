import type pg from 'pg';
import { SAMPLES, type FleetCount, type FleetPageQuery, type FleetSession, type Publication } from './fleet.js';
import { databaseError, table, type Queryable } from './postgres-connect.js';
import { FLEET_SELECT, PUBLISHED_SELECT, rowToPublication, rowToSession, type FleetRow, type PublishedRow } from './postgres-fleet-rows.js';
import { FLEET_VERSION, HISTORY_VERSION } from './postgres-schema.js';
import type { PostgresTarget } from './postgres-url.js';

/**
 * The fleet's rows in PostgreSQL: `published` (one per per-user manifest) and `fleet` (one per
 * manifest and end user), as plan, apply and `state` read and write them; ensure's own statements
 * are in postgres-fleet-store.ts. An application's role needs only SELECT, INSERT and UPDATE on
 * `fleet` and SELECT on `published` (docs/per-user.md's grants).
 */

/** Every publication of the workspace (one per per-user manifest: few). */
export async function readPublications(db: Queryable, target: PostgresTarget, version: number): Promise<Publication[]> {
  if (version < FLEET_VERSION) return [];
  const r = await db.query<PublishedRow>(`SELECT ${PUBLISHED_SELECT} FROM ${table(target, 'published')} WHERE workspace = $1 ORDER BY name`, [target.workspace]).catch((err: unknown) => {
    throw databaseError(err, target, `read the per-user manifests published to workspace "${target.workspace}"`);
  });
  return r.rows.map((row) => rowToPublication(row, target));
}

/**
 * Sessions per manifest and version, counted by the database (the rows never leave it), with the
 * first few users of each version (by the index on version) for plan's samples.
 */
export async function readFleetCounts(db: Queryable, target: PostgresTarget, version: number): Promise<FleetCount[]> {
  if (version < FLEET_VERSION) return [];
  const fleet = table(target, 'fleet');
  const r = await db.query<{ name: string; version: number | null; sessions: string; unknown: string; samples: string[] | null }>(
    `SELECT g.*, s.samples FROM (
       SELECT name, version, count(*) FILTER (WHERE session_id <> '') AS sessions,
         count(*) FILTER (WHERE session_id = '' AND (claim_state = 'unknown' OR (claim_state = 'sent' AND claim_expires < now()))) AS unknown
       FROM ${fleet} WHERE workspace = $1 GROUP BY name, version) g
     CROSS JOIN LATERAL (SELECT array_agg(user_id) AS samples FROM (
       SELECT user_id FROM ${fleet} f WHERE f.workspace = $1 AND f.name = g.name AND f.version IS NOT DISTINCT FROM g.version AND f.session_id <> ''
       ORDER BY user_id LIMIT ${SAMPLES}) u) s
     ORDER BY g.name, g.version`,
    [target.workspace],
  ).catch((err: unknown) => {
    throw databaseError(err, target, `count the per-user sessions of workspace "${target.workspace}"`);
  });
  const byName = new Map<string, FleetCount & { byVersion: Map<number, number>; samples: Map<number, string[]> }>();
  for (const row of r.rows) {
    const c = byName.get(row.name) ?? { name: row.name, sessions: 0, byVersion: new Map<number, number>(), unknown: 0, samples: new Map<number, string[]>() };
    byName.set(row.name, c);
    const n = Number(row.sessions);
    c.sessions += n;
    c.unknown += Number(row.unknown);
    if (n === 0) continue;
    const v = row.version ?? 0;
    c.byVersion.set(v, (c.byVersion.get(v) ?? 0) + n);
    c.samples.set(v, [...(c.samples.get(v) ?? []), ...(row.samples ?? [])].slice(0, SAMPLES));
  }
  return [...byName.values()];
}

/**
 * The earlier versions of the publications that sessions are still on (the current one is in
 * `published`): what a rollout plans each group's change from. None before schema version 6.
 */
export async function readPublishedVersions(db: Queryable, target: PostgresTarget, version: number, wanted: readonly { name: string; version: number }[]): Promise<Publication[]> {
  if (version < HISTORY_VERSION || wanted.length === 0) return [];
  const r = await db.query<PublishedRow>(
    `SELECT ${PUBLISHED_SELECT.split(', ').map((c) => `p.${c}`).join(', ')} FROM ${table(target, 'published_versions')} p
     JOIN unnest($2::text[], $3::int[]) AS w(name, version) ON p.name = w.name AND p.version = w.version
     WHERE p.workspace = $1`,
    [target.workspace, wanted.map((w) => w.name), wanted.map((w) => w.version)],
  ).catch((err: unknown) => {
    throw databaseError(err, target, `read the earlier published versions of workspace "${target.workspace}"`);
  });
  return r.rows.map((row) => rowToPublication(row, target));
}

/**
 * Writes the publications in one transaction fenced on the workspace's lock: a pipeline whose lock
 * was taken over publishes nothing, and an application never reads half of a run's publications.
 * Answers whether the lock was held.
 */
export async function writePublications(client: pg.ClientBase, target: PostgresTarget, lockId: string, publications: readonly Publication[]): Promise<boolean> {
  const t = (name: string) => table(target, name);
  await client.query('BEGIN');
  try {
    const held = await client.query(`SELECT 1 FROM ${t('locks')} WHERE workspace = $1 AND lock_id = $2 FOR SHARE`, [target.workspace, lockId]);
    if (held.rowCount !== 1) {
      await client.query('ROLLBACK');
      return false;
    }
    for (const p of publications) {
      const values = [target.workspace, p.name, p.version, JSON.stringify(p.body), JSON.stringify(p.templates), p.body_hash, p.api_version, p.file, p.published_at];
      await client.query(
        `INSERT INTO ${t('published')} (workspace, ${PUBLISHED_SELECT}) VALUES ($1, $2, $3, $4::json, $5::jsonb, $6, $7, $8, $9)
         ON CONFLICT (workspace, name) DO UPDATE SET version = EXCLUDED.version, body = EXCLUDED.body, templates = EXCLUDED.templates,
           body_hash = EXCLUDED.body_hash, api_version = EXCLUDED.api_version, file = EXCLUDED.file, published_at = EXCLUDED.published_at`,
        values,
      );
      await client.query(
        `INSERT INTO ${t('published_versions')} (workspace, ${PUBLISHED_SELECT}) VALUES ($1, $2, $3, $4::json, $5::jsonb, $6, $7, $8, $9)
         ON CONFLICT (workspace, name, version) DO UPDATE SET body = EXCLUDED.body, templates = EXCLUDED.templates, body_hash = EXCLUDED.body_hash,
           api_version = EXCLUDED.api_version, file = EXCLUDED.file, published_at = EXCLUDED.published_at`,
        values,
      );
    }
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Removes publications and the versions kept of them, in one transaction fenced on the workspace's
 * lock (destroy and prune, once the sessions are gone). Answers whether the lock was held.
 */
export async function deletePublications(client: pg.ClientBase, target: PostgresTarget, lockId: string, names: readonly string[]): Promise<boolean> {
  await client.query('BEGIN');
  try {
    const held = await client.query(`SELECT 1 FROM ${table(target, 'locks')} WHERE workspace = $1 AND lock_id = $2 FOR SHARE`, [target.workspace, lockId]);
    if (held.rowCount !== 1) {
      await client.query('ROLLBACK');
      return false;
    }
    for (const t of ['published', 'published_versions']) await client.query(`DELETE FROM ${table(target, t)} WHERE workspace = $1 AND name = ANY($2::text[])`, [target.workspace, [...names]]);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Removes one end user's row of the fleet (`state rm NAME --user-id U`); what it held. */
export async function deleteFleetRow(db: Queryable, target: PostgresTarget, name: string, userId: string): Promise<FleetSession | undefined> {
  const r = await db.query<FleetRow>(
    `DELETE FROM ${table(target, 'fleet')} WHERE workspace = $1 AND name = $2 AND user_id = $3 RETURNING ${FLEET_SELECT}`,
    [target.workspace, name, userId],
  );
  return r.rows[0] === undefined ? undefined : rowToSession(r.rows[0]);
}

/** One page of the fleet's rows in (name, user id) order, by the primary key (keyset, never OFFSET). */
export async function readFleetPage(db: Queryable, target: PostgresTarget, query: FleetPageQuery): Promise<FleetSession[]> {
  const r = await db.query<FleetRow>(
    `SELECT ${FLEET_SELECT} FROM ${table(target, 'fleet')}
     WHERE workspace = $1 AND ($2::text IS NULL OR name = $2) AND ($3::text IS NULL OR user_id = $3)
       AND ($4::text IS NULL OR (name, user_id) > ($4, $5))
     ORDER BY name, user_id LIMIT $6`,
    [target.workspace, query.name ?? null, query.userId ?? null, query.after?.name ?? null, query.after?.userId ?? null, query.limit],
  );
  return r.rows.map(rowToSession);
}

/** The workspaces something is published to: where an application's ensure can find a manifest. */
export async function publishedWorkspaces(db: Queryable, target: PostgresTarget): Promise<string[]> {
  const r = await db.query<{ workspace: string }>(`SELECT DISTINCT workspace FROM ${table(target, 'published')} ORDER BY workspace`).catch((err: unknown) => {
    throw databaseError(err, target, `read the workspaces with per-user manifests in schema "${target.schema}"`);
  });
  return r.rows.map((row) => row.workspace);
}
