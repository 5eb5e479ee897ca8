import type pg from 'pg';
import { InputError, StateError } from '../diagnostics/errors.js';
import { isTemplateList, storableVersion } from './entry.js';
import { fleetRowProblem, type FleetCount, type FleetPageQuery, type FleetSession, type FleetStore, type Publication } from './fleet.js';
import { databaseError, table, type Queryable } from './postgres-connect.js';
import { FLEET_VERSION } from './postgres-schema.js';
import type { PostgresTarget } from './postgres-url.js';

/**
 * The fleet's rows in PostgreSQL: `published` (one per per-user manifest) and `fleet` (one per
 * manifest and end user). Every statement is one autocommitted statement with unnamed parameters,
 * so it holds through a transaction-mode pooler, and needs only SELECT, INSERT and UPDATE on
 * `fleet` and SELECT on `published`: what the README grants an application's role.
 */

interface FleetRow {
  name: string;
  user_id: string;
  session_id: string;
  mcp_url: string;
  tool_router_tools: unknown;
  config_version: string | null;
  version: number | null;
  body_hash: string | null;
  created_at: Date | null;
  claim_id: string | null;
  claim_state: 'claimed' | 'sent' | 'unknown' | null;
  claim_since: Date | null;
  claim_expired: boolean | null;
  claim_reason: string | null;
}

const FLEET_SELECT = `name, user_id, session_id, mcp_url, tool_router_tools, config_version, version, body_hash, created_at,
  claim_id, claim_state, claim_since, claim_expires < now() AS claim_expired, claim_reason`;

function rowToSession(row: FleetRow): FleetSession {
  // A row is written by sessionctl alone; one edited by hand or by another writer is reported, not handed on.
  const problem = fleetRowProblem(row);
  if (problem !== undefined) throw new InputError(`a fleet row of the state is not valid (${JSON.stringify(row.name).slice(0, 80)}, user ${JSON.stringify(row.user_id).slice(0, 80)}: ${problem}); fix it, or remove it with \`sessionctl state rm\``);
  const tools = Array.isArray(row.tool_router_tools) ? row.tool_router_tools.filter((t): t is string => typeof t === 'string') : [];
  const session: FleetSession = {
    name: row.name,
    user_id: row.user_id,
    session_id: row.session_id,
    mcp_url: row.mcp_url,
    tool_router_tools: tools,
    config_version: row.config_version === null ? null : storableVersion(Number(row.config_version)),
    version: row.version,
    body_hash: row.body_hash,
    created_at: row.created_at?.toISOString() ?? null,
  };
  if (row.claim_id !== null && row.claim_state !== null) {
    session.claim = {
      id: row.claim_id,
      state: row.claim_state,
      since: (row.claim_since ?? new Date(0)).toISOString(),
      expired: row.claim_expired === true,
      ...(row.claim_reason !== null ? { reason: row.claim_reason } : {}),
    };
  }
  return session;
}

interface PublishedRow {
  name: string;
  version: number;
  body: unknown;
  templates: unknown;
  body_hash: string;
  api_version: string;
  file: string | null;
  published_at: Date;
}

const PUBLISHED_SELECT = 'name, version, body, templates, body_hash, api_version, file, published_at';

function rowToPublication(row: PublishedRow, target: PostgresTarget): Publication {
  const body = row.body;
  const templates = row.templates;
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !isTemplateList(templates)) {
    throw new InputError(`the publication of "${row.name}" (workspace "${target.workspace}") is not valid; publish it again with \`sessionctl apply\``, target.location);
  }
  return {
    name: row.name,
    version: row.version,
    body: body as Publication['body'],
    templates,
    body_hash: row.body_hash,
    api_version: row.api_version === '3.1' ? '3.1' : '3',
    file: row.file,
    published_at: row.published_at.toISOString(),
  };
}

/** Every publication of the workspace (one per per-user manifest: few). */
export async function readPublications(db: Queryable, target: PostgresTarget, version: number): Promise<Publication[]> {
  if (version < FLEET_VERSION) return [];
  const r = await db.query<PublishedRow>(`SELECT ${PUBLISHED_SELECT} FROM ${table(target, 'published')} WHERE workspace = $1 ORDER BY name`, [target.workspace]);
  return r.rows.map((row) => rowToPublication(row, target));
}

/** Sessions per manifest and version, counted by the database (the rows never leave it). */
export async function readFleetCounts(db: Queryable, target: PostgresTarget, version: number): Promise<FleetCount[]> {
  if (version < FLEET_VERSION) return [];
  const r = await db.query<{ name: string; version: number | null; sessions: string; unknown: string }>(
    `SELECT name, version, count(*) FILTER (WHERE session_id <> '') AS sessions,
       count(*) FILTER (WHERE session_id = '' AND (claim_state = 'unknown' OR (claim_state = 'sent' AND claim_expires < now()))) AS unknown
     FROM ${table(target, 'fleet')} WHERE workspace = $1 GROUP BY name, version ORDER BY name, version`,
    [target.workspace],
  );
  const byName = new Map<string, { name: string; sessions: number; byVersion: Map<number, number>; unknown: number }>();
  for (const row of r.rows) {
    const c = byName.get(row.name) ?? { name: row.name, sessions: 0, byVersion: new Map<number, number>(), unknown: 0 };
    byName.set(row.name, c);
    const n = Number(row.sessions);
    c.sessions += n;
    c.unknown += Number(row.unknown);
    if (row.version !== null && n > 0) c.byVersion.set(row.version, (c.byVersion.get(row.version) ?? 0) + n);
  }
  return [...byName.values()];
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
      await client.query(
        `INSERT INTO ${t('published')} (workspace, ${PUBLISHED_SELECT}) VALUES ($1, $2, $3, $4::json, $5::jsonb, $6, $7, $8, $9)
         ON CONFLICT (workspace, name) DO UPDATE SET version = EXCLUDED.version, body = EXCLUDED.body, templates = EXCLUDED.templates,
           body_hash = EXCLUDED.body_hash, api_version = EXCLUDED.api_version, file = EXCLUDED.file, published_at = EXCLUDED.published_at`,
        [target.workspace, p.name, p.version, JSON.stringify(p.body), JSON.stringify(p.templates), p.body_hash, p.api_version, p.file, p.published_at],
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
 * The claim: inserted, or taken over from a free row or a `claimed` one whose lease ended, only
 * when the manifest is published; answers whether it was taken (`n`) and the publication's columns.
 */
function claimStatement(target: PostgresTarget): string {
  const t = (name: string) => table(target, name);
  return `WITH p AS (SELECT ${PUBLISHED_SELECT} FROM ${t('published')} WHERE workspace = $1 AND name = $2),
    c AS (INSERT INTO ${t('fleet')} AS f (workspace, name, user_id, claim_id, claim_state, claim_since, claim_expires)
      SELECT $1, $2, $3, $4, 'claimed', now(), now() + $5 * interval '1 millisecond' WHERE EXISTS (SELECT 1 FROM p)
      ON CONFLICT (workspace, name, user_id) DO UPDATE SET claim_id = EXCLUDED.claim_id, claim_state = 'claimed', claim_since = now(),
        claim_expires = EXCLUDED.claim_expires, claim_reason = NULL
      WHERE f.session_id = '' AND (f.claim_state IS NULL OR (f.claim_state = 'claimed' AND f.claim_expires < now()))
      RETURNING 1)
    SELECT (SELECT count(*) FROM c)::int AS n, p.*, set_config('synchronous_commit', 'off', true) AS synchronous_commit FROM (SELECT 1) AS one LEFT JOIN p ON true`;
}

/** How a user's row is named in errors. */
const who = (name: string, userId: string): string => `the session of "${name}" for user ${JSON.stringify(userId)}`;

/** The fleet store of a workspace over a pool (or a pooler): see FleetStore. */
export function postgresFleet(pool: pg.Pool, target: PostgresTarget): FleetStore {
  const t = (name: string) => table(target, name);
  const key = [target.workspace];
  let closed = false;
  const run = async <R extends pg.QueryResultRow>(doing: string, text: string, values: unknown[]): Promise<pg.QueryResult<R>> => {
    if (closed) throw new StateError('the fleet store is closed', target.location);
    try {
      return await pool.query<R>(text, values);
    } catch (err) {
      throw databaseError(err, target, doing);
    }
  };
  const changed = async (doing: string, text: string, values: unknown[]): Promise<boolean> => ((await run<{ n: number }>(doing, text, values)).rows[0]?.n ?? 0) > 0;
  return {
    location: target.location,
    session: async (name, userId) => {
      const r = await run<FleetRow>(`read ${who(name, userId)}`, `SELECT ${FLEET_SELECT} FROM ${t('fleet')} WHERE workspace = $1 AND name = $2 AND user_id = $3`, [...key, name, userId]);
      return r.rows[0] === undefined ? undefined : rowToSession(r.rows[0]);
    },
    published: async () => (await run<{ name: string }>('read the published manifests', `SELECT name FROM ${t('published')} WHERE workspace = $1 ORDER BY name`, key)).rows.map((r) => r.name),
    // A free row (a refused create) or a claim whose holder died before sending is taken over; a
    // recorded session, a live claim and any sent create are not.
    // Only the mark that a create is about to leave must reach the disk before it answers: a claim,
    // a release or a recorded session lost with a crash of the server leaves a row that is safe
    // (a claim gone: its holder's mark finds nothing and sends nothing; a session not recorded: its
    // claim stays sent, so its outcome is unknown, never created twice). Each write is one
    // statement that sets its own commit's durability, which holds through a transaction pooler.
    // One round trip: the publication is read with the claim, and no claim is taken without one.
    claim: async (name, userId, claimId, leaseMs) => {
      const r = await run<{ n: number } & Partial<PublishedRow>>(`claim ${who(name, userId)}`, claimStatement(target), [...key, name, userId, claimId, leaseMs]);
      const row = r.rows[0]!;
      return { claimed: row.n > 0, publication: row.version === undefined || row.version === null ? undefined : rowToPublication(row as PublishedRow, target) };
    },
    markSent: (name, userId, claimId, leaseMs) =>
      changed(
        `record the create of ${who(name, userId)}`,
        durability(
          'on',
          `UPDATE ${t('fleet')} SET claim_state = 'sent', claim_since = now(), claim_expires = now() + $5 * interval '1 millisecond'
           WHERE workspace = $1 AND name = $2 AND user_id = $3 AND claim_id = $4 AND claim_state = 'claimed' AND claim_expires >= now()`,
        ),
        [...key, name, userId, claimId, leaseMs],
      ),
    complete: (s, claimId) =>
      changed(
        `record ${who(s.name, s.user_id)} (${s.session_id})`,
        durability(
          'off',
          `UPDATE ${t('fleet')} SET session_id = $5, mcp_url = $6, tool_router_tools = $7::jsonb, config_version = $8, version = $9, body_hash = $10,
             created_at = now(), claim_id = NULL, claim_state = NULL, claim_since = NULL, claim_expires = NULL, claim_reason = NULL
           WHERE workspace = $1 AND name = $2 AND user_id = $3 AND claim_id = $4`,
        ),
        [...key, s.name, s.user_id, claimId, s.session_id, s.mcp_url, JSON.stringify(s.tool_router_tools), s.config_version, s.version, s.body_hash],
      ),
    release: (name, userId, claimId) =>
      changed(
        `release the claim on ${who(name, userId)}`,
        durability(
          'off',
          `UPDATE ${t('fleet')} SET claim_id = NULL, claim_state = NULL, claim_since = NULL, claim_expires = NULL, claim_reason = NULL
           WHERE workspace = $1 AND name = $2 AND user_id = $3 AND claim_id = $4`,
        ),
        [...key, name, userId, claimId],
      ).then(() => undefined),
    markUnknown: (name, userId, claimId, reason) =>
      changed(
        `record the unknown outcome of ${who(name, userId)}`,
        durability('off', `UPDATE ${t('fleet')} SET claim_state = 'unknown', claim_reason = $5 WHERE workspace = $1 AND name = $2 AND user_id = $3 AND claim_id = $4`),
        [...key, name, userId, claimId, reason],
      ).then(() => undefined),
    close: async () => {
      closed = true;
      await pool.end().catch(() => undefined);
    },
  };
}

/**
 * A write as one statement that answers how many rows it changed (`n`) and sets the durability of
 * its own commit (`synchronous_commit` for this transaction alone, whatever the server's default).
 */
function durability(commit: 'on' | 'off', write: string): string {
  return `WITH w AS (${write} RETURNING 1) SELECT (SELECT count(*) FROM w)::int AS n, set_config('synchronous_commit', '${commit}', true) AS synchronous_commit`;
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
  const r = await db.query<{ workspace: string }>(`SELECT DISTINCT workspace FROM ${table(target, 'published')} ORDER BY workspace`);
  return r.rows.map((row) => row.workspace);
}
