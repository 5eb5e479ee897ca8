import { afterAll, describe, expect, test } from 'vitest';
import { InputError, StateError } from '../../../src/diagnostics/errors.js';
import { postgresBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { lockOwner, type StateLockOptions } from '../../../src/state/lock.js';
import { openPool } from '../../../src/state/postgres-connect.js';
import { SCHEMA_VERSION, workspaceLockKeys } from '../../../src/state/postgres-schema.js';
import type { PostgresStateStore } from '../../../src/state/postgres-store.js';
import { parsePostgresUrl } from '../../../src/state/postgres-url.js';
import { PostgresWriter } from '../../../src/state/postgres-writer.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';
import { testClient } from '../../setup/postgres.js';

/**
 * What only the PostgreSQL backend has: the schema created on first use and versioned, workspaces
 * that separate environments in one database, the lock row, fenced writes, and a row that is not
 * an entry. On the real server of this run (skipped, with the reason printed once, without one).
 */

const schemas: string[] = [];
function fresh(): string {
  const s = uniqueSchema('schema');
  schemas.push(s);
  return s;
}
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const lock = (pid = 4242): StateLockOptions => ({ owner: lockOwner(pid), isAlive: () => true });

function entry(name: string): StateEntry {
  return { name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: 'm', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z' };
}

/** The tables as sessionctl made them at version 2 (a migration is never edited, so this layout is fixed). */
async function createVersion2(schema: string): Promise<void> {
  await sql(db!, `CREATE SCHEMA "${schema}"`);
  await sql(db!, `CREATE TABLE "${schema}".schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  await sql(
    db!,
    `CREATE TABLE "${schema}".entries (workspace text NOT NULL, name text NOT NULL, user_id text NOT NULL, session_id text NOT NULL, mcp_url text NOT NULL,
      tool_router_tools jsonb NOT NULL, config_version bigint, body_hash text NOT NULL, body json, applied_at timestamptz NOT NULL, pending_create jsonb,
      superseded jsonb, updated_at timestamptz NOT NULL DEFAULT now(), file text, PRIMARY KEY (workspace, name, user_id))`,
  );
  await sql(db!, `CREATE TABLE "${schema}".locks (workspace text PRIMARY KEY, lock_id text NOT NULL, pid integer, hostname text, role text NOT NULL DEFAULT current_user, backend_pid integer NOT NULL, since timestamptz NOT NULL DEFAULT now())`);
  await sql(db!, `INSERT INTO "${schema}".schema_migrations (version, description) VALUES (2, 'v2')`);
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL state schema', () => {
  const backend = (schema: string, workspace = 'default') => postgresBackend(stateUrl(db!, schema, workspace), { env: db!.env });

  test('reading a database never written creates nothing; the first lock creates the schema at the current version', async () => {
    const schema = fresh();
    expect((await backend(schema).load()).list()).toEqual([]);
    expect(await sql(db!, 'SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).toEqual([]);
    await (await backend(schema).openLocked(lock())).unlock();
    const versions = await sql<{ version: number; description: string }>(db!, `SELECT version, description FROM "${schema}".schema_migrations ORDER BY version`);
    expect(versions.map((v) => v.version)).toEqual([SCHEMA_VERSION]);
    expect(versions[0]!.description).toBe(
      'created at version 6: entries (one row per workspace, manifest name and user id) and locks (one row per workspace); entries.file: the manifest file an entry was applied from, which scopes `apply --prune`; locks.expires_at: the lock is a lease its holder renews (it works through a transaction-mode pooler); backend_pid only for a lock of an older sessionctl; bindings: the service (base URL, key fingerprint) each workspace was applied against; published (one row per workspace and per-user manifest) and fleet (one row per workspace, manifest and end user: the sessions ensure creates); published_versions: every version published of a per-user manifest, so that a rollout plans from the version each session is on',
    );
    const tables = await sql<{ table_name: string }>(db!, 'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schema]);
    expect(tables.map((t) => t.table_name)).toEqual(['bindings', 'entries', 'fleet', 'locks', 'published', 'published_versions', 'schema_migrations']);
  });

  test('a schema at version 1 (as the first sessionctl with PostgreSQL made it) is upgraded by the first lock: each migration recorded, its rows kept', async () => {
    const schema = fresh();
    // Version 1 exactly as it shipped: a migration is never edited, so this layout is fixed.
    await sql(db!, `CREATE SCHEMA "${schema}"`);
    await sql(db!, `CREATE TABLE "${schema}".schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    await sql(
      db!,
      `CREATE TABLE "${schema}".entries (workspace text NOT NULL, name text NOT NULL, user_id text NOT NULL, session_id text NOT NULL, mcp_url text NOT NULL,
        tool_router_tools jsonb NOT NULL, config_version bigint, body_hash text NOT NULL, body json, applied_at timestamptz NOT NULL, pending_create jsonb,
        superseded jsonb, updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (workspace, name, user_id))`,
    );
    await sql(db!, `CREATE TABLE "${schema}".locks (workspace text PRIMARY KEY, lock_id text NOT NULL, pid integer, hostname text, role text NOT NULL DEFAULT current_user, backend_pid integer NOT NULL, since timestamptz NOT NULL DEFAULT now())`);
    await sql(db!, `INSERT INTO "${schema}".schema_migrations (version, description) VALUES (1, 'v1')`);
    await sql(db!, `INSERT INTO "${schema}".entries (workspace, name, user_id, session_id, mcp_url, tool_router_tools, config_version, body_hash, body, applied_at) VALUES ('default', 'old', 'u1', 'trs_old', 'm', '[]', 1, 'h', NULL, '2026-03-01T10:00:00.000Z')`);
    // Reading (plan, diff, an application's lookup) needs no lock and does not upgrade: it reads version 1 as it is.
    expect((await backend(schema).load()).list()).toEqual([entry('old')]);
    const reader = await backend(schema).openReader();
    expect([await reader.list(), await reader.get('old', 'u1')]).toEqual([[entry('old')], entry('old')]);
    await reader.close();
    expect(await sql(db!, `SELECT version FROM "${schema}".schema_migrations`)).toEqual([{ version: 1 }]);
    const state = await backend(schema).openLocked(lock());
    expect(state.list()).toEqual([entry('old')]);
    await state.record({ ...entry('new'), file: 'm/new.yaml' });
    await state.unlock();
    const versions = await sql<{ version: number; description: string }>(db!, `SELECT version, description FROM "${schema}".schema_migrations ORDER BY version`);
    expect(versions.map((v) => [v.version, v.description])).toEqual([
      [1, 'v1'],
      [2, 'entries.file: the manifest file an entry was applied from, which scopes `apply --prune`'],
      [3, 'locks.expires_at: the lock is a lease its holder renews (it works through a transaction-mode pooler); backend_pid only for a lock of an older sessionctl'],
      [4, 'bindings: the service (base URL, key fingerprint) each workspace was applied against'],
      [5, 'published (one row per workspace and per-user manifest) and fleet (one row per workspace, manifest and end user: the sessions ensure creates)'],
      [6, 'published_versions: every version published of a per-user manifest, so that a rollout plans from the version each session is on'],
    ]);
    expect(SCHEMA_VERSION).toBe(6);
    expect((await backend(schema).load()).list()).toEqual([{ ...entry('new'), file: 'm/new.yaml' }, entry('old')]);
  });

  test('a schema at version 2 whose lock an older sessionctl holds (an advisory lock, no lease): read and named as it is; the first run upgrades it and then waits for that lock; `state unlock` works on either version', async () => {
    const schema = fresh();
    await createVersion2(schema);
    const older = testClient(db!);
    await older.connect();
    try {
      const keys = workspaceLockKeys(parsePostgresUrl(stateUrl(db!, schema), db!.env));
      await older.query('SELECT pg_advisory_lock($1, $2)', keys);
      await older.query(`INSERT INTO "${schema}".locks (workspace, lock_id, pid, hostname, backend_pid) VALUES ('default', 'L-v2', 77, 'old-host', pg_backend_pid())`);
      expect(await backend(schema).lockHolder()).toMatchObject({ id: 'L-v2', pid: 77, hostname: 'old-host' });
      let paused = 0;
      const sleep = async () => void (paused++ === 0 && (await older.query('SELECT pg_advisory_unlock($1, $2)', keys)));
      const state = await backend(schema).openLocked({ ...lock(), timeoutMs: 60_000, sleep });
      expect(paused).toBe(1);
      expect(await sql(db!, `SELECT max(version) AS v FROM "${schema}".schema_migrations`)).toEqual([{ v: SCHEMA_VERSION }]);
      expect((await backend(schema).lockHolder())?.pid).toBe(4242);
      await state.unlock();
      // An older run's row on a schema still at version 2: `state unlock` removes it.
      const other = fresh();
      await createVersion2(other);
      await sql(db!, `INSERT INTO "${other}".locks (workspace, lock_id, pid, hostname, backend_pid) VALUES ('default', 'L-v2', 77, 'old-host', 1)`);
      expect((await backend(other).forceUnlock('L-v2')).holder).toStrictEqual({ id: 'L-v2', pid: 77, hostname: 'old-host', role: db!.env['PGUSER'], since: expect.any(String) });
      expect(await sql(db!, `SELECT version FROM "${other}".schema_migrations`)).toEqual([{ version: 2 }]);
    } finally {
      await older.end();
    }
  });

  test('eight first runs at once, on eight workspaces: one creates the schema, all of them work', async () => {
    const schema = fresh();
    const states = await Promise.all(Array.from({ length: 8 }, (_, i) => backend(schema, `w${i}`).openLocked(lock(5000 + i))));
    await Promise.all(states.map((s, i) => s.record(entry(`m${i}`))));
    await Promise.all(states.map((s) => s.unlock()));
    expect(await sql(db!, `SELECT version FROM "${schema}".schema_migrations`)).toEqual([{ version: SCHEMA_VERSION }]);
    expect((await sql(db!, `SELECT workspace FROM "${schema}".entries ORDER BY 1`)).map((r) => r['workspace'])).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6', 'w7']);
  });

  test('a schema newer than this sessionctl is refused, for reading and writing, and left as it was', async () => {
    const schema = fresh();
    await (await backend(schema).openLocked(lock())).unlock();
    await sql(db!, `INSERT INTO "${schema}".schema_migrations (version, description) VALUES (99, 'from the future')`);
    const message = `the state schema "${schema}" is at version 99; this sessionctl knows versions up to ${SCHEMA_VERSION}. Use a newer sessionctl.`;
    await expect(backend(schema).load()).rejects.toThrow(message);
    await expect(backend(schema).openLocked(lock())).rejects.toThrow(message);
    expect(await sql(db!, `SELECT count(*)::int AS n FROM "${schema}".locks`)).toEqual([{ n: 0 }]);
  });

  test('a role that may not create the tables: refused with what to grant, nothing half made', async () => {
    const schema = fresh();
    await sql(db!, `CREATE SCHEMA "${schema}"`);
    // The owner gives up its own CREATE on this schema alone (other tests share the database).
    await sql(db!, `REVOKE CREATE ON SCHEMA "${schema}" FROM CURRENT_USER`);
    const err = await backend(schema).openLocked(lock()).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect((err as InputError).message).toBe(
      `cannot prepare the state schema "${schema}": permission denied for schema ${schema} (SQLSTATE 42501); role "${db!.env['PGUSER']}" needs CREATE on schema ${schema}: grant it, or have an administrator run the first apply (docs/state.md, "Roles and grants")`,
    );
    expect((err as InputError).cause).toMatchObject({ code: '42501' });
    expect(await sql(db!, 'SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema])).toEqual([]);
  });

  test('a schema already at the current version needs no CREATE: a role without it applies as usual', async () => {
    const schema = fresh();
    await (await backend(schema).openLocked(lock())).unlock();
    await sql(db!, `REVOKE CREATE ON SCHEMA "${schema}" FROM CURRENT_USER`);
    const state = await backend(schema).openLocked(lock());
    await state.record(entry('a'));
    await state.unlock();
    expect((await backend(schema).load()).list()).toEqual([entry('a')]);
  });

  test('another failure while preparing the schema is reported as itself, without the advice about CREATE', async () => {
    const schema = fresh();
    // Someone else's table where the state's would go.
    await sql(db!, `CREATE SCHEMA "${schema}"`);
    await sql(db!, `CREATE TABLE "${schema}".entries (x int)`);
    const err = await backend(schema).openLocked(lock()).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe(`cannot prepare the state schema "${schema}": relation "entries" already exists (SQLSTATE 42P07)`);
    expect(await sql(db!, 'SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema])).toEqual([{ table_name: 'entries' }]);
  });

  test('a schema version that cannot be read is an error that says so', async () => {
    const schema = fresh();
    await (await backend(schema).openLocked(lock())).unlock();
    await sql(db!, `REVOKE SELECT ON "${schema}".schema_migrations FROM CURRENT_USER`);
    const err = await backend(schema).load().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect(err).toBeInstanceOf(StateError);
    expect((err as InputError).message).toBe(
      `cannot read the state schema version: permission denied for table schema_migrations (SQLSTATE 42501); role "${db!.env['PGUSER']}" needs SELECT on ${schema}.schema_migrations: grant it, or run as a role that has it (docs/state.md, "Roles and grants")`,
    );
  });

  test('workspaces separate environments: their own entries, their own lock', async () => {
    const schema = fresh();
    const staging = await backend(schema, 'staging').openLocked(lock(1));
    const production = await backend(schema, 'production').openLocked(lock(2));
    await staging.record(entry('a'));
    await production.record(entry('b'));
    await Promise.all([staging.unlock(), production.unlock()]);
    expect((await backend(schema, 'staging').load()).list().map((e) => e.name)).toEqual(['a']);
    expect((await backend(schema, 'production').load()).list().map((e) => e.name)).toEqual(['b']);
  });

  test('the lock row says who holds the lock and until when (a lease of 15 s by default, no server connection); it goes with the lock', async () => {
    const schema = fresh();
    const state = await backend(schema, 'ci').openLocked(lock(31337));
    const rows = await sql(db!, `SELECT workspace, pid, hostname, role, backend_pid, expires_at - since AS lease FROM "${schema}".locks`);
    expect(rows).toEqual([{ workspace: 'ci', pid: 31337, hostname: lockOwner(1).hostname, role: db!.env['PGUSER'], backend_pid: null, lease: { seconds: 15 } }]);
    await state.unlock();
    expect(await sql(db!, `SELECT * FROM "${schema}".locks`)).toEqual([]);
  });

  test('writes are fenced on the lock: once the lock row is gone, record and forget are refused and write nothing', async () => {
    const schema = fresh();
    const state = await backend(schema).openLocked(lock());
    await state.record(entry('kept'));
    await sql(db!, `DELETE FROM "${schema}".locks`);
    await expect(state.record(entry('late'))).rejects.toThrow(/the state lock \S+ is no longer held .*"late" for user "u1" was not written/);
    await expect(state.forget('kept', 'u1')).rejects.toThrow(/no longer held .*"kept" for user "u1" was not written/);
    await state.unlock();
    expect((await backend(schema).load()).list().map((e) => e.name)).toEqual(['kept']);
  });

  test('writes fired without waiting: each is committed when it resolves, a bad one fails alone', async () => {
    const schema = fresh();
    const state = await backend(schema).openLocked(lock());
    const many = Array.from({ length: 300 }, (_, i) => state.record(entry(`m${String(i).padStart(3, '0')}`)));
    const bad = state.record({ ...entry('bad'), applied_at: 'not a time' });
    const gone = state.forget('m000', 'u1');
    await Promise.all([...many, gone]);
    await expect(bad).rejects.toThrow('entry "bad" has applied_at "not a time", which is not an ISO 8601 time');
    const rows = await sql<{ name: string }>(db!, `SELECT name FROM "${schema}".entries ORDER BY name`);
    expect(rows).toHaveLength(299);
    expect(rows.some((r) => r.name === 'm000' || r.name === 'bad')).toBe(false);
    await state.unlock();
  });

  test('over several connections, the writes of one entry keep their order', async () => {
    const schema = fresh();
    const url = stateUrl(db!, schema);
    const state = (await backend(schema).openLocked(lock())) as PostgresStateStore;
    const target = parsePostgresUrl(url, db!.env);
    const pool = openPool(target, db!.env, 2);
    const writer = new PostgresWriter(pool, target, state.lockId!, 2);
    const version = (n: number) => ({ ...entry('same'), config_version: n });
    // Version 1 takes a connection alone; the rest of `same` must wait for it, though the other connection is free.
    const first = writer.upsert(version(1));
    const others = Array.from({ length: 50 }, (_, i) => writer.upsert(entry(`m${i}`)));
    await Promise.all([first, ...others, writer.upsert(version(2)), writer.delete('same', 'u1'), writer.upsert(version(3))]);
    await pool.end();
    await state.unlock();
    expect(await sql(db!, `SELECT config_version FROM "${schema}".entries WHERE name = 'same'`)).toEqual([{ config_version: '3' }]);
  });

  test('a row that is not an entry is reported with its place, not trusted', async () => {
    const schema = fresh();
    const state = await backend(schema, 'hand').openLocked(lock());
    await state.record(entry('edited'));
    await state.unlock();
    await sql(db!, `UPDATE "${schema}".entries SET tool_router_tools = '{"not": "a list"}'`);
    await expect(backend(schema, 'hand').load()).rejects.toThrow(
      'a row of the state (workspace "hand") is not valid (entries["edited", "u1"].tool_router_tools is not a list of strings); it was left untouched.',
    );
  });
});
