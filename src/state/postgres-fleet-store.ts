import type pg from 'pg';
import { StateError } from '../diagnostics/errors.js';
import { batcher, type BatchLimits } from '../util/batch.js';
import type { FleetSession, FleetStore, Publication } from './fleet.js';
import { databaseError, sqlState, table } from './postgres-connect.js';
import { Needs } from './postgres-privileges.js';
import { durability, FLEET_SELECT, fleetColumns, PUBLISHED_SELECT, rowToPublication, rowToSession, who, type FleetRow, type PublishedRow } from './postgres-fleet-rows.js';
import type { PostgresTarget } from './postgres-url.js';
import { publicationCache } from './publication-cache.js';

/**
 * ensure's statements over a pool (or a pooler). Each is one autocommitted statement with unnamed
 * parameters, so it holds through a transaction-mode pooler. Concurrent calls of one kind are
 * batched: a process creating many users at once sends one claim, one mark and one record for
 * the lot (one commit, one flush to disk for the marks) where it sent one each; a lone call
 * leaves at once, as one statement about one row.
 *
 * Durability: only the mark that a create is about to leave must reach the disk before it
 * answers. A claim, a release or a recorded session lost with a crash of the server leaves a row
 * that is safe (a claim gone: its holder's mark finds nothing and sends nothing; a session not
 * recorded: its claim stays sent, so its outcome is unknown, never created twice).
 */

/**
 * Batches of one kind running at once, and the most users in one. One write of each kind at a
 * time: the calls that arrive meanwhile share the next one (measured in bench/ensure: at 16 new
 * users in flight, the database's CPU per user fell by a third against two at a time). Reads go
 * two at a time: a recorded user's read is the whole of its ensure, and must not queue long.
 */
export const FLEET_BATCHES = { reads: { maxRunning: 2, maxBatch: 200 }, writes: { maxRunning: 1, maxBatch: 200 } } as const satisfies Record<string, BatchLimits>;

/** A statement that writes (or locks rows to: `FOR UPDATE` needs UPDATE too), for the privileges a refusal names. */
const WRITES = /\b(INSERT|UPDATE|DELETE)\b/i;

/** Deadlocks between two processes' batches (rows locked in another order) are retried. */
const DEADLOCK_RETRIES = 3;

interface ClaimItem {
  name: string;
  userId: string;
  claimId: string;
  leaseMs: number;
}
type ClaimAnswer = { claimed: boolean; publication: Publication | undefined };
type PublicationOf = (name: string, version: number, bodyHash: string) => Promise<Publication | undefined>;
type Run = <R extends pg.QueryResultRow>(doing: string, text: string, values: unknown[]) => Promise<pg.QueryResult<R>>;

const keyOf = (name: string, userId: string): string => `${name}\0${userId}`;
/** A batch's statement is named in errors by its one user, or by how many. */
const whom = (items: readonly { name: string; userId: string }[]): string => (items.length === 1 ? who(items[0]!.name, items[0]!.userId) : `the sessions of ${items.length} users`);

/** The fleet store of a workspace over a pool (or a pooler): see FleetStore. */
export function postgresFleet(pool: pg.Pool, target: PostgresTarget, limits: Record<'reads' | 'writes', BatchLimits> = FLEET_BATCHES): FleetStore {
  const t = (name: string) => table(target, name);
  let closed = false;
  const run: Run = async (doing, text, values) => {
    for (let attempt = 1; ; attempt++) {
      if (closed) throw new StateError('the fleet store is closed', target.location);
      try {
        return await pool.query(text, values);
      } catch (err) {
        if (sqlState(err) !== '40P01' || attempt > DEADLOCK_RETRIES) throw databaseError(err, target, doing, WRITES.test(text) ? Needs.ensure : Needs.read);
      }
    }
  };
  const ws = target.workspace;
  const single = async (doing: string, text: string, values: unknown[]): Promise<boolean> => ((await run<{ n: number }>(doing, text, values)).rows[0]?.n ?? 0) > 0;
  return {
    location: target.location,
    session: (() => {
      const read = batcher((items: readonly { name: string; userId: string }[]) => readSessions(run, t, ws, items), limits.reads);
      return async (name, userId) => {
        const row = await read({ name, userId });
        if (row instanceof Error) throw row;
        return row;
      };
    })(),
    published: async () => (await run<{ name: string }>('read the published manifests', `SELECT name FROM ${t('published')} WHERE workspace = $1 ORDER BY name`, [ws])).rows.map((r) => r.name),
    claim: (() => {
      const publication = publicationCache(async (name) => {
        const r = await run<PublishedRow>(`read the publication of "${name}"`, `SELECT ${PUBLISHED_SELECT} FROM ${t('published')} WHERE workspace = $1 AND name = $2`, [ws, name]);
        return r.rows[0] === undefined ? undefined : rowToPublication(r.rows[0], target);
      });
      const claimBatch = batcher((items: readonly ClaimItem[]) => claimAll(run, t, target, items, publication), limits.writes);
      return (name, userId, claimId, leaseMs) => claimBatch({ name, userId, claimId, leaseMs });
    })(),
    markSent: (() => {
      const sent = batcher((items: readonly ClaimItem[]) => markAllSent(run, t, ws, items), limits.writes);
      return (name, userId, claimId, leaseMs) => sent({ name, userId, claimId, leaseMs });
    })(),
    complete: (() => {
      const done = batcher((items: readonly { session: FleetSession; claimId: string }[]) => completeAll(run, t, ws, items), limits.writes);
      return (session, claimId) => done({ session, claimId });
    })(),
    release: (name, userId, claimId) =>
      single(
        `release the claim on ${who(name, userId)}`,
        durability(
          'off',
          `UPDATE ${t('fleet')} SET claim_id = NULL, claim_state = NULL, claim_since = NULL, claim_expires = NULL, claim_reason = NULL
           WHERE workspace = $1 AND name = $2 AND user_id = $3 AND claim_id = $4`,
        ),
        [ws, name, userId, claimId],
      ).then(() => undefined),
    markUnknown: (name, userId, claimId, reason) =>
      single(
        `record the unknown outcome of ${who(name, userId)}`,
        durability('off', `UPDATE ${t('fleet')} SET claim_state = 'unknown', claim_reason = $5 WHERE workspace = $1 AND name = $2 AND user_id = $3 AND claim_id = $4`),
        [ws, name, userId, claimId, reason],
      ).then(() => undefined),
    close: async () => {
      closed = true;
      await pool.end().catch(() => undefined);
    },
  };
}

/** The users' rows (or claims), by the primary key; a row that is not valid is its own caller's error, not its batch's. */
async function readSessions(run: Run, t: (name: string) => string, ws: string, items: readonly { name: string; userId: string }[]): Promise<(FleetSession | undefined | Error)[]> {
  // A batch joins its keys to the primary key: the planner starts from the keys, whatever the
  // statistics of a table that has just grown (a filter on a name alone would scan a manifest's rows).
  const r =
    items.length === 1
      ? await run<FleetRow>(`read ${whom(items)}`, `SELECT ${FLEET_SELECT} FROM ${t('fleet')} WHERE workspace = $1 AND name = $2 AND user_id = $3`, [ws, items[0]!.name, items[0]!.userId])
      : await run<FleetRow>(
          `read ${whom(items)}`,
          `SELECT ${fleetColumns('f')}
           FROM unnest($2::text[], $3::text[]) AS i(name, user_id) JOIN ${t('fleet')} AS f ON f.workspace = $1 AND f.name = i.name AND f.user_id = i.user_id`,
          [ws, items.map((i) => i.name), items.map((i) => i.userId)],
        );
  const byKey = new Map(r.rows.map((row) => [keyOf(row.name, row.user_id), row]));
  return items.map((i) => {
    const row = byKey.get(keyOf(i.name, i.userId));
    try {
      return row === undefined ? undefined : rowToSession(row);
    } catch (err) {
      return err as Error;
    }
  });
}

/**
 * The claims: each inserted, or taken over from a free row or a `claimed` one whose lease ended,
 * only when its manifest is published; the publication's version is read in the same statement
 * (its body once per version: publicationCache). A recorded
 * session, a live claim and any sent create are never taken. Rows are written in key order, so two
 * processes' batches wait for each other rather than deadlock (mostly; see DEADLOCK_RETRIES).
 */
async function claimAll(run: Run, t: (name: string) => string, target: PostgresTarget, items: readonly ClaimItem[], publication: PublicationOf): Promise<ClaimAnswer[]> {
  // One INSERT cannot touch a row twice (ON CONFLICT DO UPDATE): a user twice in a batch goes in the next statement.
  const seen = new Set<string>();
  const first: ClaimItem[] = [];
  const rest: ClaimItem[] = [];
  for (const i of items) {
    const k = keyOf(i.name, i.userId);
    (seen.has(k) ? rest : first).push(i);
    seen.add(k);
  }
  const r = await run<{ claim_id: string; claimed: boolean; version: number | null; body_hash: string | null }>(
    `claim ${whom(first)}`,
    `WITH i AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::float8[]) AS i(name, user_id, claim_id, lease_ms)),
      p AS (SELECT name, version, body_hash FROM ${t('published')} WHERE workspace = $1 AND name IN (SELECT name FROM i)),
      c AS (INSERT INTO ${t('fleet')} AS f (workspace, name, user_id, claim_id, claim_state, claim_since, claim_expires)
        SELECT $1, i.name, i.user_id, i.claim_id, 'claimed', now(), now() + i.lease_ms * interval '1 millisecond'
        FROM i WHERE i.name IN (SELECT name FROM p) ORDER BY i.name, i.user_id
        ON CONFLICT (workspace, name, user_id) DO UPDATE SET claim_id = EXCLUDED.claim_id, claim_state = 'claimed', claim_since = now(),
          claim_expires = EXCLUDED.claim_expires, claim_reason = NULL
        WHERE f.session_id = '' AND (f.claim_state IS NULL OR (f.claim_state = 'claimed' AND f.claim_expires < now()))
        RETURNING f.claim_id)
    SELECT i.claim_id, c.claim_id IS NOT NULL AS claimed, p.version, p.body_hash, set_config('synchronous_commit', 'off', true) AS synchronous_commit
    FROM i LEFT JOIN c ON c.claim_id = i.claim_id LEFT JOIN p ON p.name = i.name`,
    [target.workspace, first.map((i) => i.name), first.map((i) => i.userId), first.map((i) => i.claimId), first.map((i) => i.leaseMs)],
  );
  const byClaim = new Map(r.rows.map((row) => [row.claim_id, row]));
  const answers = new Map<ClaimItem, ClaimAnswer>();
  await Promise.all(
    first.map(async (item) => {
      const row = byClaim.get(item.claimId);
      const published = row?.version === undefined || row.version === null || row.body_hash === null ? undefined : await publication(item.name, row.version, row.body_hash);
      answers.set(item, { claimed: row?.claimed === true, publication: published });
    }),
  );
  const later = rest.length === 0 ? [] : await claimAll(run, t, target, rest, publication);
  rest.forEach((item, n) => answers.set(item, later[n]!));
  return items.map((i) => answers.get(i)!);
}

/**
 * Marks the claims sent, with the lease their waits may last, committed to disk before it answers
 * (one flush for the batch): a caller that later finds a claim expired knows its create may have
 * happened. A claim no longer held (taken over, or expired) is not marked, and its create not sent.
 */
async function markAllSent(run: Run, t: (name: string) => string, ws: string, items: readonly ClaimItem[]): Promise<boolean[]> {
  const r = await run<{ done: string[] }>(
    `record the create of ${whom(items)}`,
    `WITH i AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::float8[]) AS i(name, user_id, claim_id, lease_ms)),
      w AS (UPDATE ${t('fleet')} AS f SET claim_state = 'sent', claim_since = now(), claim_expires = now() + i.lease_ms * interval '1 millisecond'
        FROM i WHERE f.workspace = $1 AND f.name = i.name AND f.user_id = i.user_id AND f.claim_id = i.claim_id
          AND f.claim_state = 'claimed' AND f.claim_expires >= now()
        RETURNING f.claim_id)
    SELECT ARRAY(SELECT claim_id FROM w) AS done, set_config('synchronous_commit', 'on', true) AS synchronous_commit`,
    [ws, items.map((i) => i.name), items.map((i) => i.userId), items.map((i) => i.claimId), items.map((i) => i.leaseMs)],
  );
  const done = new Set(r.rows[0]?.done ?? []);
  return items.map((i) => done.has(i.claimId));
}

/** Records the created sessions in their claims' rows and ends the claims; false for a row taken from its claim. */
async function completeAll(run: Run, t: (name: string) => string, ws: string, items: readonly { session: FleetSession; claimId: string }[]): Promise<boolean[]> {
  const s = items.map((i) => i.session);
  const r = await run<{ done: string[] }>(
    `record ${items.length === 1 ? `${who(s[0]!.name, s[0]!.user_id)} (${s[0]!.session_id})` : whom(s.map((x) => ({ name: x.name, userId: x.user_id })))}`,
    `WITH i AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::int[], $10::text[])
        AS i(name, user_id, claim_id, session_id, mcp_url, tools, config_version, version, body_hash)),
      w AS (UPDATE ${t('fleet')} AS f SET session_id = i.session_id, mcp_url = i.mcp_url, tool_router_tools = i.tools::jsonb,
          config_version = i.config_version, version = i.version, body_hash = i.body_hash, created_at = now(),
          claim_id = NULL, claim_state = NULL, claim_since = NULL, claim_expires = NULL, claim_reason = NULL
        FROM i WHERE f.workspace = $1 AND f.name = i.name AND f.user_id = i.user_id AND f.claim_id = i.claim_id
        RETURNING i.claim_id)
    SELECT ARRAY(SELECT claim_id FROM w) AS done, set_config('synchronous_commit', 'off', true) AS synchronous_commit`,
    [
      ws,
      s.map((x) => x.name),
      s.map((x) => x.user_id),
      items.map((i) => i.claimId),
      s.map((x) => x.session_id),
      s.map((x) => x.mcp_url),
      s.map((x) => JSON.stringify(x.tool_router_tools)),
      s.map((x) => x.config_version),
      s.map((x) => x.version),
      s.map((x) => x.body_hash),
    ],
  );
  const done = new Set(r.rows[0]?.done ?? []);
  return items.map((i) => done.has(i.claimId));
}
