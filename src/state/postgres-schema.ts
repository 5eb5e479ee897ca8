import { createHash } from 'node:crypto';
import pg from 'pg';
import { InputError } from '../diagnostics/errors.js';
import { databaseError, sqlState, table, type Queryable } from './postgres-connect.js';
import { Needs } from './postgres-privileges.js';
import type { PostgresTarget } from './postgres-url.js';

/**
 * The tables of the PostgreSQL state, created on first use in the URL's schema and versioned: each
 * change is a new migration appended here (never an edit of one that shipped), applied in order
 * by the first run that takes the lock after an upgrade, and recorded in `schema_migrations`.
 */
interface Migration {
  version: number;
  description: string;
  statements: (t: (name: string) => string) => string[];
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'entries (one row per workspace, manifest name and user id) and locks (one row per workspace)',
    // `body` is json, not jsonb: it keeps the key order, so `state pull` gives back what was pushed.
    statements: (t) => [
      `CREATE TABLE ${t('entries')} (
        workspace text NOT NULL,
        name text NOT NULL,
        user_id text NOT NULL,
        session_id text NOT NULL,
        mcp_url text NOT NULL,
        tool_router_tools jsonb NOT NULL,
        config_version bigint,
        body_hash text NOT NULL,
        body json,
        applied_at timestamptz NOT NULL,
        pending_create jsonb,
        superseded jsonb,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace, name, user_id)
      )`,
      `CREATE TABLE ${t('locks')} (
        workspace text PRIMARY KEY,
        lock_id text NOT NULL,
        pid integer,
        hostname text,
        role text NOT NULL DEFAULT current_user,
        backend_pid integer NOT NULL,
        since timestamptz NOT NULL DEFAULT now()
      )`,
    ],
  },
  {
    version: 2,
    description: 'entries.file: the manifest file an entry was applied from, which scopes `apply --prune`',
    statements: (t) => [`ALTER TABLE ${t('entries')} ADD COLUMN file text`],
  },
  {
    version: 3,
    description: 'locks.expires_at: the lock is a lease its holder renews (it works through a transaction-mode pooler); backend_pid only for a lock of an older sessionctl',
    // A row of an older sessionctl (its advisory lock held by `backend_pid`, no lease) is still
    // honoured while that lock is held. The check refuses the upsert an older sessionctl would make
    // over a lease (it sets backend_pid, keeps expires_at): one that read version 2 just before this
    // migration cannot take over a live lease; its error names the constraint.
    statements: (t) => [
      `ALTER TABLE ${t('locks')} ALTER COLUMN backend_pid DROP NOT NULL, ADD COLUMN expires_at timestamptz,
        ADD CONSTRAINT lease_rows_need_sessionctl_with_schema_3 CHECK (backend_pid IS NULL OR expires_at IS NULL)`,
    ],
  },
  {
    version: 4,
    description: 'bindings: the service (base URL, key fingerprint) each workspace was applied against',
    statements: (t) => [
      `CREATE TABLE ${t('bindings')} (
        workspace text PRIMARY KEY,
        service text NOT NULL,
        project text,
        bound_at timestamptz NOT NULL
      )`,
    ],
  },
  {
    version: 5,
    description: 'published (one row per workspace and per-user manifest) and fleet (one row per workspace, manifest and end user: the sessions ensure creates)',
    // fleet's primary key serves ensure's one read; (workspace, name, version) serves a rollout's
    // "sessions on an older version", (workspace, user_id) `state list --user`.
    statements: (t) => [
      `CREATE TABLE ${t('published')} (
        workspace text NOT NULL,
        name text NOT NULL,
        version integer NOT NULL,
        body json NOT NULL,
        templates jsonb NOT NULL,
        body_hash text NOT NULL,
        api_version text NOT NULL,
        file text,
        published_at timestamptz NOT NULL,
        PRIMARY KEY (workspace, name)
      )`,
      `CREATE TABLE ${t('fleet')} (
        workspace text NOT NULL,
        name text NOT NULL,
        user_id text NOT NULL,
        session_id text NOT NULL DEFAULT '',
        mcp_url text NOT NULL DEFAULT '',
        tool_router_tools jsonb NOT NULL DEFAULT '[]',
        config_version bigint,
        version integer,
        body_hash text,
        created_at timestamptz,
        claim_id text,
        claim_state text CHECK (claim_state IN ('claimed', 'sent', 'unknown')),
        claim_since timestamptz,
        claim_expires timestamptz,
        claim_reason text,
        PRIMARY KEY (workspace, name, user_id)
      )`,
      `CREATE INDEX ON ${t('fleet')} (workspace, name, version)`,
      `CREATE INDEX ON ${t('fleet')} (workspace, user_id)`,
    ],
  },
  {
    version: 6,
    description: 'published_versions: every version published of a per-user manifest, so that a rollout plans from the version each session is on',
    statements: (t) => [
      `CREATE TABLE ${t('published_versions')} (
        workspace text NOT NULL,
        name text NOT NULL,
        version integer NOT NULL,
        body json NOT NULL,
        templates jsonb NOT NULL,
        body_hash text NOT NULL,
        api_version text NOT NULL,
        file text,
        published_at timestamptz NOT NULL,
        PRIMARY KEY (workspace, name, version)
      )`,
      `INSERT INTO ${t('published_versions')} SELECT workspace, name, version, body, templates, body_hash, api_version, file, published_at FROM ${t('published')}`,
    ],
  },
];

/** The first schema version that keeps every published version (published_versions). */
export const HISTORY_VERSION = 6;

/** The first schema version with the fleet's tables (published, fleet). */
export const FLEET_VERSION = 5;

/** The schema version this sessionctl writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** A 32-bit key from text, for the two-key form of PostgreSQL's advisory locks. */
export function key32(text: string): number {
  return createHash('sha256').update(text).digest().readInt32BE(0);
}

/**
 * The advisory lock key pair of a workspace (the second key is the workspace's): how a sessionctl
 * before schema version 3 held the lock. Read only to honour such a run's lock during an upgrade.
 */
export function workspaceLockKeys(target: PostgresTarget): [number, number] {
  return [key32(`sessionctl-state\0${target.schema}`), key32(target.workspace)];
}

/**
 * The schema version the database holds: 0 when the tables were never created. A version newer
 * than this sessionctl's is refused, so that an old binary never writes a newer layout.
 */
export async function schemaVersion(client: Queryable, target: PostgresTarget): Promise<number> {
  let version: number;
  try {
    const exists = await client.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [`${pg.escapeIdentifier(target.schema)}.schema_migrations`]);
    if (exists.rows[0]?.t === null) return 0;
    const r = await client.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${table(target, 'schema_migrations')}`);
    version = r.rows[0]?.v ?? 0;
  } catch (err) {
    throw databaseError(err, target, 'read the state schema version');
  }
  if (version > SCHEMA_VERSION) {
    throw new InputError(`the state schema "${target.schema}" is at version ${version}; this sessionctl knows versions up to ${SCHEMA_VERSION}. Use a newer sessionctl.`, target.location);
  }
  return version;
}

/**
 * The rows `schema_migrations` gets for the migrations just applied: one per migration on an
 * upgrade; one for the current version on a first use, which creates the current layout in one
 * step (no earlier version ever existed there), its description saying everything it made.
 */
function recorded(current: number, applied: readonly Migration[]): Array<[number, string]> {
  if (current > 0 || applied.length === 0) return applied.map((m) => [m.version, m.description]);
  return [[SCHEMA_VERSION, `created at version ${SCHEMA_VERSION}: ${applied.map((m) => m.description).join('; ')}`]];
}

/**
 * Brings the schema to SCHEMA_VERSION: creates it on first use, then applies each missing
 * migration, all in one transaction under an advisory lock, so two first runs do not race.
 */
export async function migrate(client: pg.ClientBase, target: PostgresTarget): Promise<void> {
  try {
    await migrateOnce(client, target);
  } catch (err) {
    // Two first runs at once: `CREATE SCHEMA IF NOT EXISTS` of one can still meet the other's
    // uncommitted schema (seen through a transaction-mode pooler); the second try finds it made.
    if (sqlState((err as { cause?: unknown }).cause) !== '23505') throw err;
    await migrateOnce(client, target);
  }
}

async function migrateOnce(client: pg.ClientBase, target: PostgresTarget): Promise<void> {
  if ((await schemaVersion(client, target)) === SCHEMA_VERSION) return;
  const t = (name: string) => table(target, name);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, 0)', [key32(`sessionctl-migrate\0${target.schema}`)]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(target.schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${t('schema_migrations')} (
      version integer PRIMARY KEY,
      description text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const current = await schemaVersion(client, target);
    const missing = MIGRATIONS.filter((m) => m.version > current);
    for (const m of missing) for (const sql of m.statements(t)) await client.query(sql);
    for (const [version, description] of recorded(current, missing)) {
      await client.query(`INSERT INTO ${t('schema_migrations')} (version, description) VALUES ($1, $2)`, [version, description]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw databaseError(err, target, `prepare the state schema "${target.schema}"`, Needs.create);
  }
}
