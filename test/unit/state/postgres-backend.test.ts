import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { InputError } from '../../../src/diagnostics/errors.js';
import { postgresBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { SCHEMA_VERSION } from '../../../src/state/postgres-schema.js';
import { db, dropSchema, openConnections, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';

/**
 * The PostgreSQL backend's entry points on the real server of this run: the application's reader
 * (fails at open on a newer schema, an empty state before the first apply, a bad row reported),
 * and the connections each call leaves open (none; counted by an application_name of the test's own).
 */

const schemas: string[] = [];
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const lock: StateLockOptions = { owner: { pid: 4242, hostname: 'host-a' }, isAlive: () => true };
const entry: StateEntry = { name: 'a', user_id: 'u1', session_id: 'trs_a', mcp_url: 'm', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z' };

function fresh() {
  const schema = uniqueSchema('pgbackend');
  schemas.push(schema);
  const app = `backendtest-${randomBytes(4).toString('hex')}`;
  return { schema, app, backend: postgresBackend(`${stateUrl(db!, schema)}&application_name=${app}`, { env: db!.env }) };
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL backend', () => {
  test('lockHolder and state unlock leave no connection open', async () => {
    const { backend, app } = fresh();
    const state = await backend.openLocked(lock);
    const holder = await backend.lockHolder();
    expect(holder?.pid).toBe(4242);
    await state.unlock();
    expect(await backend.lockHolder()).toBeUndefined();
    await expect(backend.forceUnlock('nope')).rejects.toThrow(/^workspace "default" is not locked; nothing to unlock$/);
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('the reader fails at open on a schema newer than this sessionctl, and leaves no connection', async () => {
    const { backend, schema, app } = fresh();
    await (await backend.openLocked(lock)).unlock();
    await sql(db!, `INSERT INTO "${schema}".schema_migrations (version, description) VALUES (99, 'future')`);
    const err = await backend.openReader().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe(`the state schema "${schema}" is at version 99; this sessionctl knows versions up to ${SCHEMA_VERSION}. Use a newer sessionctl.`);
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('the reader reports a row that is not an entry (only a state never applied reads as empty); closed, it leaves no connection', async () => {
    const { backend, schema, app } = fresh();
    const state = await backend.openLocked(lock);
    await state.record(entry);
    await state.unlock();
    await sql(db!, `UPDATE "${schema}".entries SET body = '"text"'`);
    const reader = await backend.openReader();
    for (const call of [() => reader.list(), () => reader.get('a', 'u1')]) {
      const err = await call().then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).message).toMatch(/^a row of the state \(workspace "default"\) is not valid \(entries\["a", "u1"\]\.body is not an object\)/);
    }
    await reader.close();
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('a reader fails at open on a schema whose tables were dropped: no state is there', async () => {
    const { backend, schema } = fresh();
    await (await backend.openLocked(lock)).unlock();
    await sql(db!, `DROP TABLE "${schema}".entries`);
    const err = await backend.openReader().then(() => undefined, (e: unknown) => e);
    expect((err as InputError).message).toBe('no state is in this database for that schema and workspace: nothing was ever applied there, or the URL is mistyped');
  });

  test('the reader is read-only on the server: a read that would write (a view over a writing function) is refused, at open and at a lookup', async () => {
    const { backend, schema } = fresh();
    const state = await backend.openLocked(lock);
    await state.record(entry);
    await state.unlock();
    const s = `"${schema}"`;
    await sql(db!, `CREATE TABLE ${s}.audit (x int)`);
    await sql(db!, `CREATE FUNCTION ${s}.touch() RETURNS int LANGUAGE sql VOLATILE AS 'INSERT INTO ${s}.audit VALUES (1) RETURNING 1'`);
    await sql(db!, `ALTER TABLE ${s}.entries RENAME TO entries_t`);
    await sql(db!, `CREATE VIEW ${s}.entries AS SELECT e.* FROM ${s}.entries_t e CROSS JOIN (SELECT ${s}.touch()) t`);
    // The open itself reads the entries (does the workspace exist?): refused there already.
    const err = await backend.openReader().then(() => undefined, (e: unknown) => e);
    expect((err as InputError).message).toBe(`cannot read the workspaces of schema "${schema}": cannot execute INSERT in a read-only transaction (SQLSTATE 25006)`);
    await sql(db!, `ALTER TABLE ${s}.schema_migrations RENAME TO schema_migrations_t`);
    await sql(db!, `CREATE VIEW ${s}.schema_migrations AS SELECT m.* FROM ${s}.schema_migrations_t m CROSS JOIN (SELECT ${s}.touch()) t`);
    const atOpen = await backend.openReader().then(() => undefined, (e: unknown) => e);
    expect((atOpen as InputError).message).toBe('cannot read the state schema version: cannot execute INSERT in a read-only transaction (SQLSTATE 25006)');
    expect(await sql(db!, `SELECT count(*)::int AS n FROM ${s}.audit`)).toEqual([{ n: 0 }]);
  });
});
