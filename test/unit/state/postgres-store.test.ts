import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { StateError } from '../../../src/diagnostics/errors.js';
import { postgresBackend, type StateBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import type { PostgresStateStore } from '../../../src/state/postgres-store.js';
import { db, dropSchema, openConnections, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';

/**
 * The PostgreSQL store around its lock, on the real server of this run: what happens to writes in
 * flight at unlock, to a store whose lease is renewed or found gone, to an open that fails
 * half-way, and which connections stay open afterwards (none: each test's connections carry an
 * application_name of their own, so they can be counted).
 */

const schemas: string[] = [];
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const lock = (pid = 4242): StateLockOptions => ({ owner: { pid, hostname: 'host-a' }, isAlive: () => true });

function entry(name: string, over: Partial<StateEntry> = {}): StateEntry {
  return { name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: 'm', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z', ...over };
}

function fresh(lockLeaseMs?: number): { backend: StateBackend; schema: string; app: string } {
  const schema = uniqueSchema('store');
  schemas.push(schema);
  const app = `storetest-${randomBytes(4).toString('hex')}`;
  return { backend: postgresBackend(`${stateUrl(db!, schema)}&application_name=${app}`, { env: db!.env, ...(lockLeaseMs !== undefined ? { lockLeaseMs } : {}) }), schema, app };
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL state store', () => {
  test('load reads without a lock and leaves no connection open; the view is where the URL says', async () => {
    const { backend, app } = fresh();
    const first = await backend.openLocked(lock());
    await first.record(entry('a'));
    const view = await backend.load();
    expect([view.location, view.list().map((e) => e.name), view.hashAtLoad]).toEqual([backend.location, ['a'], expect.stringMatching(/^[0-9a-f]{64}$/)]);
    await first.unlock();
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('unlock waits for the writes in flight: each is committed, then the lock is released and every connection closed', async () => {
    const { backend, schema, app } = fresh();
    const state = (await backend.openLocked(lock())) as PostgresStateStore;
    expect(state.lockId).toMatch(/^[0-9a-f-]{36}$/);
    const writes = [state.record(entry('a')), state.record(entry('b')), state.forget('a', 'u1'), state.record(entry('c'))];
    await state.unlock();
    expect(await Promise.allSettled(writes)).toEqual(writes.map(() => ({ status: 'fulfilled', value: undefined })));
    expect(state.lockId).toBeUndefined();
    expect(await sql(db!, `SELECT name FROM "${schema}".entries ORDER BY name`)).toEqual([{ name: 'b' }, { name: 'c' }]);
    expect(await sql(db!, `SELECT * FROM "${schema}".locks`)).toEqual([]);
    expect(await openConnections(db!, app)).toBe(0);
    await state.unlock(); // a second unlock does nothing
    expect(await backend.lockHolder()).toBeUndefined();
  });

  test('a write the database refuses says which entry and what was done; the lock holds on', async () => {
    const { backend, schema } = fresh();
    const state = await backend.openLocked(lock());
    await state.record(entry('a'));
    await sql(db!, `DROP TABLE "${schema}".entries`);
    await expect(state.record(entry('b'))).rejects.toThrow(`cannot record "b" for user "u1" in the state: relation "${schema}.entries" does not exist (SQLSTATE 42P01)`);
    await expect(state.forget('a', 'u1')).rejects.toThrow(`cannot remove "a" for user "u1" in the state: relation "${schema}.entries" does not exist (SQLSTATE 42P01)`);
    expect(state.list().map((e) => e.name)).toEqual(['a']);
    expect((await backend.lockHolder())?.pid).toBe(4242);
    await state.unlock();
  });

  test('the entries as this run changed them, in the stable order; writes after unlock are refused by name', async () => {
    const { backend } = fresh();
    const state = await backend.openLocked(lock());
    await state.record(entry('b'));
    await state.record(entry('a', { user_id: 'u2' }));
    await state.record(entry('a'));
    expect(state.list().map((e) => `${e.name}/${e.user_id}`)).toEqual(['a/u1', 'a/u2', 'b/u1']);
    await state.unlock();
    await expect(state.record(entry('c'))).rejects.toThrow(/^PostgresStateStore\.record called without the lock$/);
    await expect(state.forget('c', 'u1')).rejects.toThrow(/^PostgresStateStore\.forget called without the lock$/);
  });

  test('a write fenced out (the lock row gone) is a StateError that names the lock and the entry', async () => {
    const { backend, schema } = fresh();
    const state = (await backend.openLocked(lock())) as PostgresStateStore;
    await sql(db!, `DELETE FROM "${schema}".locks`);
    // Not `rejects.toThrow`: it passes on a rejection with no value at all.
    const err = await state.forget('a', 'u1').then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StateError);
    expect((err as StateError).message).toBe(
      `the state lock ${state.lockId} is no longer held (released with \`sessionctl state unlock\`, or taken over by another run after its lease lapsed); "a" for user "u1" was not written`,
    );
    await state.unlock();
  });

  test('the lease is renewed while the store holds the lock (every third of it), on the database clock', async () => {
    const { backend, schema } = fresh(600);
    const state = await backend.openLocked(lock());
    const end = async () => (await sql<{ e: Date }>(db!, `SELECT expires_at AS e FROM "${schema}".locks`))[0]!.e.getTime();
    const first = await end();
    let later = first;
    for (let i = 0; i < 500 && later === first; i++) {
      await new Promise((r) => setTimeout(r, 20));
      later = await end();
    }
    expect(later).toBeGreaterThan(first);
    await state.unlock();
    expect(await sql(db!, `SELECT * FROM "${schema}".locks`)).toEqual([]);
  });

  test('a renewal that finds the lock gone stops every later write before it reaches the database; unlock leaves the row of the run that took over, and closes everything', async () => {
    const { backend, schema, app } = fresh(300);
    const state = (await backend.openLocked(lock())) as PostgresStateStore;
    const id = state.lockId!;
    // Another run takes over (as after `state unlock`); the entries table goes, so that any write
    // that still reached the database would fail as a database error, not as the lock gone.
    await sql(db!, `UPDATE "${schema}".locks SET lock_id = 'L-next', pid = 5151`);
    await sql(db!, `DROP TABLE "${schema}".entries`);
    const gone = `the state lock ${id} is no longer held (released with \`sessionctl state unlock\`, or taken over by another run after its lease lapsed); "w" for user "u1" was not written`;
    let refused = '';
    for (let i = 0; i < 500 && refused !== gone; i++) {
      refused = await state.record(entry('w')).then(() => '', (e: unknown) => (e as Error).message);
      if (refused !== gone) await new Promise((r) => setTimeout(r, 20));
    }
    expect(refused).toBe(gone);
    await expect(state.forget('w', 'u1')).rejects.toThrow(gone);
    await state.unlock();
    expect(await sql(db!, `SELECT lock_id, pid FROM "${schema}".locks`)).toEqual([{ lock_id: 'L-next', pid: 5151 }]);
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('an open that fails after taking the lock (a row that is not an entry) releases it and closes its connections', async () => {
    const { backend, schema, app } = fresh();
    const state = await backend.openLocked(lock());
    await state.record(entry('a'));
    await state.unlock();
    await sql(db!, `UPDATE "${schema}".entries SET tool_router_tools = '"x"'`);
    await expect(backend.openLocked(lock())).rejects.toThrow(/^a row of the state \(workspace "default"\) is not valid \(entries\["a", "u1"\]\.tool_router_tools is not a list of strings\)/);
    expect(await sql(db!, `SELECT * FROM "${schema}".locks`)).toEqual([]);
    expect(await backend.lockHolder()).toBeUndefined();
    expect(await openConnections(db!, app)).toBe(0);
  });

  test('an open that finds the lock taken closes its connection', async () => {
    const { backend, app } = fresh();
    const first = await backend.openLocked(lock(1111));
    await expect(backend.openLocked(lock(2222))).rejects.toThrow(/^the state is locked by process 1111 on host-a/);
    await first.unlock();
    expect(await openConnections(db!, app)).toBe(0);
  });
});
