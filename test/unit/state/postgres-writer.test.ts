import type pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { postgresBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { openPool } from '../../../src/state/postgres-connect.js';
import type { PostgresStateStore } from '../../../src/state/postgres-store.js';
import { parsePostgresUrl } from '../../../src/state/postgres-url.js';
import { LockGone, PostgresWriter } from '../../../src/state/postgres-writer.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { testClient } from '../../setup/postgres.js';
import { skipBecause } from '../../helpers/skip.js';

/**
 * The writer's batches on the real server of this run: the writes that queue behind a commit in
 * flight share the next one, where a key written twice keeps its last write, and a batch that
 * finds the lock gone writes nothing at all.
 */

const schemas: string[] = [];
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const lock: StateLockOptions = { owner: { pid: 4242, hostname: 'host-a' }, isAlive: () => true };

function entry(name: string, version = 1): StateEntry {
  return { name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: 'm', tool_router_tools: [], config_version: version, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z' };
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL writer', () => {
  /**
   * A real pool that notes each statement the writer sends: the keys it writes (upserts and
   * deletes, as `name/user`), and whether a key was sent while a statement writing it was still in flight.
   */
  function watched(pool: pg.Pool) {
    const sent: string[][] = [];
    const inFlight = new Set<string[]>();
    const overlaps: string[] = [];
    const query = async (config: { values: unknown[] }) => {
      const v = config.values;
      const names = [...(v[2] as string[]), ...(v[v.length - 2] as string[])];
      const users = [...(v[3] as string[]), ...(v[v.length - 1] as string[])];
      const keys = names.map((n, i) => `${n}/${users[i]}`);
      for (const other of inFlight) overlaps.push(...keys.filter((k) => other.includes(k)));
      sent.push(keys);
      inFlight.add(keys);
      try {
        return await pool.query(config as pg.QueryConfig);
      } finally {
        inFlight.delete(keys);
      }
    };
    return { pool: { query } as unknown as pg.Pool, sent, overlaps };
  }

  /** A locked state with entries `names`, and a writer of one connection on its lock. */
  async function writer(...names: string[]) {
    const schema = uniqueSchema('writer');
    schemas.push(schema);
    const url = stateUrl(db!, schema);
    const state = (await postgresBackend(url, { env: db!.env }).openLocked(lock)) as PostgresStateStore;
    for (const n of names) await state.record(entry(n));
    const target = parsePostgresUrl(url, db!.env);
    const pool = openPool(target, db!.env, 1);
    const rows = () => sql<{ name: string; config_version: string }>(db!, `SELECT name, config_version FROM "${schema}".entries ORDER BY name`);
    const close = async () => {
      await pool.end();
      await state.unlock();
    };
    return { schema, w: new PostgresWriter(pool, target, state.lockId!, 1), rows, close, pool, target, lockId: state.lockId! };
  }

  test('writes queued behind a commit share the next one; a key written twice there keeps its last write', async () => {
    const { w, rows, close } = await writer('c', 'd');
    const first = w.upsert(entry('x')); // takes the connection
    const queued = [w.upsert(entry('a', 1)), w.upsert(entry('a', 2)), w.delete('b', 'u1'), w.upsert(entry('b')), w.upsert(entry('c', 5)), w.delete('c', 'u1'), w.delete('d', 'u1')];
    expect(await Promise.allSettled([first, ...queued])).toEqual(Array.from({ length: 8 }, () => ({ status: 'fulfilled', value: undefined })));
    expect(await rows()).toEqual([
      { name: 'a', config_version: '2' },
      { name: 'b', config_version: '1' },
      { name: 'x', config_version: '1' },
    ]);
    await close();
  });

  test('a batch that finds the lock gone: every write of it refused as LockGone, none written', async () => {
    const { schema, w, rows, close } = await writer('keep');
    await sql(db!, `DELETE FROM "${schema}".locks`);
    const results = await Promise.allSettled([w.upsert(entry('x')), w.upsert(entry('y')), w.delete('keep', 'u1')]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(LockGone);
    }
    expect(((results[0] as PromiseRejectedResult).reason as Error).message).toMatch(/^the state lock [0-9a-f-]{36} is no longer held$/);
    expect(await rows()).toEqual([{ name: 'keep', config_version: '1' }]);
    await close();
  });

  test('no named prepared statement is left on the connection (a transaction-mode pooler cannot keep one: 42P05)', async () => {
    const { pool, target, lockId, rows, close } = await writer();
    const w = new PostgresWriter(pool, target, lockId, 1);
    await Promise.all(Array.from({ length: 20 }, (_, i) => w.upsert(entry(`m${i}`))));
    await w.delete('m0', 'u1');
    // The pool has one connection: the one every write went over.
    expect((await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements')).rows).toEqual([{ n: 0 }]);
    expect(await rows()).toHaveLength(19);
    await close();
  });

  test("each write's transaction, and it alone, has synchronous_commit on, whatever the connection's setting", async () => {
    const { target, lockId, rows, close } = await writer();
    const c = testClient(db!);
    await c.connect();
    await c.query('SET synchronous_commit = off');
    const seen: string[] = [];
    const show = async () => (await c.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;
    // A pool of one connection that runs each write inside a transaction of its own, to look at the setting before the commit.
    const query = async (config: pg.QueryConfig) => {
      await c.query('BEGIN');
      const r = await c.query(config);
      seen.push(`in: ${await show()}`);
      await c.query('COMMIT');
      seen.push(`after: ${await show()}`);
      return r;
    };
    await new PostgresWriter({ query } as unknown as pg.Pool, target, lockId, 1).upsert(entry('a'));
    expect(seen).toEqual(['in: on', 'after: off']);
    expect(await rows()).toEqual([{ name: 'a', config_version: '1' }]);
    await c.end();
    await close();
  });

  test('over one connection: the first write goes alone, the writes queued meanwhile share one statement, at most 500 to a statement', async () => {
    const { pool, target, lockId, rows, close } = await writer();
    const seen = watched(pool);
    const w = new PostgresWriter(seen.pool, target, lockId, 1);
    const names = Array.from({ length: 1001 }, (_, i) => `m${String(i).padStart(4, '0')}`);
    await Promise.all([w.upsert(entry('first')), ...names.map((n) => w.upsert(entry(n)))]);
    expect(seen.sent.map((keys) => keys.length)).toEqual([1, 500, 500, 1]);
    expect(seen.sent.flat()).toEqual(['first/u1', ...names.map((n) => `${n}/u1`)]);
    expect(await rows()).toHaveLength(1002);
    await close();
  });

  test('over two connections: a key is never sent while a statement writing it is in flight; the others pass it', async () => {
    const { schema, target, lockId, rows, close } = await writer('same');
    const two = openPool(target, db!.env, 2);
    const seen = watched(two);
    const w = new PostgresWriter(seen.pool, target, lockId, 2);
    // The first write of `same` waits on its row, which another transaction holds.
    const blocker = testClient(db!);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query(`SELECT 1 FROM "${schema}".entries WHERE name = 'same' FOR UPDATE`);
    const first = w.upsert(entry('same', 1));
    const others = Array.from({ length: 20 }, (_, i) => w.upsert(entry(`m${String(i).padStart(2, '0')}`)));
    const later = [w.upsert(entry('same', 2)), w.delete('same', 'u1'), w.upsert(entry('same', 3))];
    let settled = false;
    void Promise.all(others).finally(() => (settled = true));
    for (let i = 0; i < 500 && !settled && seen.overlaps.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    // The other writes went by on the second connection; the later writes of `same` wait their turn.
    expect(seen.overlaps).toEqual([]);
    expect(settled).toBe(true);
    expect(seen.sent.flat().filter((k) => k === 'same/u1')).toEqual(['same/u1']);
    await blocker.query('ROLLBACK');
    await blocker.end();
    await Promise.all([first, ...later]);
    expect(seen.overlaps).toEqual([]);
    expect(seen.sent.flat().filter((k) => k === 'same/u1')).toEqual(['same/u1', 'same/u1']);
    expect((await rows()).find((r) => r.name === 'same')).toEqual({ name: 'same', config_version: '3' });
    await two.end();
    await close();
  });
});
